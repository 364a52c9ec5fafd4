package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

/**
 * Records written by the earlier layout (one hash per record named after the whole scope) are read
 * after an upgrade: replayed, waited for, fenced and deleted as before, unless legacy reads are
 * turned off.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonLegacyRecordTest {
  private static final String PREFIX = "idem-legacy:";
  private static final Duration LONG = Duration.ofMinutes(10);
  private static RedissonClient client;

  private final String scope =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)-"
          + UUID.randomUUID();

  @BeforeAll
  static void connect() {
    client = RedisTestEnvironment.client(2, 0);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  private RedissonIdempotencyStore store() {
    return RedissonIdempotencyStore.builder(client).keyPrefix(PREFIX).build();
  }

  @Test
  void aCompletedLegacyRecordIsReplayedFencedAndDeleted() {
    LegacyRecords legacy = new LegacyRecords(client, PREFIX);
    RecordKey key = RecordKey.of(scope, "order-1");
    legacy.completed(key, "old-owner", "fp-old", new byte[] {0, 1, 2, (byte) 0xFF}, LONG);
    RedissonIdempotencyStore store = store();

    ClaimResult claim = store.claim(key, "new-owner", "fp-old", LONG);

    assertThat(claim.isAcquired()).as("claim of a key completed before the upgrade").isFalse();
    IdempotencyRecord replay = claim.existing();
    assertThat(replay.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(replay.outcome()).containsExactly(0, 1, 2, 0xFF);
    assertThat(replay.fingerprint()).isEqualTo("fp-old");
    assertThat(replay.ownerToken()).isEqualTo("old-owner");
    assertThat(replay.expiresIn()).isGreaterThan(Duration.ofMinutes(9)).isLessThanOrEqualTo(LONG);
    assertThat(store.read(key)).hasValue(replay);
    assertThat(client.getKeys().countExists(store.layout().recordName(key)))
        .as("nothing written in the new layout")
        .isZero();

    assertThat(store.complete(key, "new-owner", new byte[] {9}, LONG))
        .as("complete by a non-holder")
        .isFalse();
    assertThat(store.release(key, "new-owner")).as("release by a non-holder").isFalse();
    assertThat(store.renew(key, "new-owner", LONG)).as("renew by a non-holder").isFalse();
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(0, 1, 2, 0xFF);

    assertThat(store.delete(key)).as("delete of the legacy record").isTrue();
    assertThat(client.getKeys().countExists(legacy.name(key))).isZero();
    assertThat(store.read(key)).isEmpty();
    assertThat(store.delete(key)).as("a second delete").isFalse();
    assertThat(store.claim(key, "new-owner", null, LONG).isAcquired())
        .as("claim after the delete")
        .isTrue();
    assertThat(store.complete(key, "new-owner", new byte[] {5}, LONG)).isTrue();
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(5);
  }

  @Test
  void aLegacyClaimHoldsTheKeyUntilItsLeaseEndsAndIsWaitedFor() throws InterruptedException {
    LegacyRecords legacy = new LegacyRecords(client, PREFIX);
    RecordKey key = RecordKey.of(scope, "order-2");
    assertThat(legacy.claim(key, "old-holder", null, Duration.ofMillis(800))).isTrue();
    RedissonIdempotencyStore store = store();

    ClaimResult claim = store.claim(key, "new-owner", null, LONG);

    assertThat(claim.isAcquired()).as("claim of a key an earlier version holds").isFalse();
    assertThat(claim.existing().status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(claim.existing().ownerToken()).isEqualTo("old-holder");
    assertThat(store.complete(key, "new-owner", new byte[] {1}, LONG))
        .as("complete by a non-holder")
        .isFalse();
    long start = System.nanoTime();
    store.awaitChange(key, Duration.ofSeconds(10));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the wait ends with the legacy lease")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(store.claim(key, "new-owner", null, LONG).isAcquired())
        .as("claim after the legacy lease")
        .isTrue();
  }

  @Test
  void aLegacyRecordCompletedWhileTheNewVersionWaitsIsReplayed() {
    LegacyRecords legacy = new LegacyRecords(client, PREFIX);
    RecordKey key = RecordKey.of(scope, "order-3");
    assertThat(legacy.claim(key, "old-holder", null, LONG)).isTrue();
    RedissonIdempotencyStore store = store();
    assertThat(store.claim(key, "new-owner", null, LONG).isAcquired()).isFalse();

    assertThat(legacy.complete(key, "old-holder", new byte[] {4, 2}, LONG)).isTrue();

    IdempotencyRecord replay = store.claim(key, "new-owner", null, LONG).existing();
    assertThat(replay.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(replay.outcome()).containsExactly(4, 2);
  }

  @Test
  void legacyRecordsAreIgnoredWhenLegacyReadsAreOff() {
    LegacyRecords legacy = new LegacyRecords(client, PREFIX);
    RecordKey key = RecordKey.of(scope, "order-4");
    legacy.completed(key, "old-owner", null, new byte[] {1}, LONG);
    RedissonIdempotencyStore store =
        RedissonIdempotencyStore.builder(client).keyPrefix(PREFIX).readLegacyRecords(false).build();

    assertThat(store.read(key)).isEmpty();
    assertThat(store.claim(key, "new-owner", null, LONG).isAcquired()).isTrue();
    assertThat(store().claim(key, "other", null, LONG).existing().ownerToken())
        .as("the new record comes first")
        .isEqualTo("new-owner");
  }
}
