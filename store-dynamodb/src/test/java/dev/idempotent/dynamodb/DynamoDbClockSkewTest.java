package dev.idempotent.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases and ttls judged by the callers' clocks: two stores on one table, each with a clock of its
 * own that the test sets, as two hosts whose clocks differ. No sleeping: DynamoDB (and dynalite)
 * judge no time in these conditions.
 */
class DynamoDbClockSkewTest {
  private static final Duration SKEW = Duration.ofSeconds(1);
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final long T0 = 1_800_000_000_000L;

  private final ManualClock holderClock = new ManualClock(T0);
  private final ManualClock claimantClock = new ManualClock(T0);
  private DynamoDbIdempotencyStore holder;
  private DynamoDbIdempotencyStore claimant;
  private final RecordKey key = RecordKey.of("skew-" + java.util.UUID.randomUUID(), "k");

  @BeforeEach
  void open() {
    holder =
        DynamoDbTestEnvironment.storeOn("idem-skew").maxClockSkew(SKEW).clock(holderClock).build();
    claimant =
        DynamoDbTestEnvironment.storeOn("idem-skew")
            .maxClockSkew(SKEW)
            .clock(claimantClock)
            .build();
  }

  @AfterEach
  void close() {
    holder.close();
    claimant.close();
  }

  @Test
  void aClockAheadByLessThanTheSkewNeverTakesOverALiveLease() {
    assertThat(holder.claim(key, "holder", null, LEASE).isAcquired()).isTrue();
    // the claimant's clock is 900 ms ahead: the lease has ended on it, not on the holder's
    holderClock.set(T0 + LEASE.toMillis() - 1);
    claimantClock.set(T0 + LEASE.toMillis() + 899);

    ClaimResult refused = claimant.claim(key, "claimant", null, LEASE);

    assertThat(refused.isAcquired()).as("claim by a clock 900 ms ahead: %s", refused).isFalse();
    assertThat(refused.existing().ownerToken()).isEqualTo("holder");
    assertThat(refused.existing().expiresIn()).as("lease left on the claimant's clock").isZero();
    assertThat(holder.renew(key, "holder", LEASE)).as("the holder renews in time").isTrue();
  }

  @Test
  void aClaimIsTakenOverOnceItsLeaseEndedTheSkewAgo() {
    assertThat(holder.claim(key, "holder", null, LEASE).isAcquired()).isTrue();
    claimantClock.set(T0 + LEASE.toMillis() + SKEW.toMillis() - 1);
    assertThat(claimant.claim(key, "claimant", null, LEASE).isAcquired())
        .as("a skew less 1 ms after the lease")
        .isFalse();

    claimantClock.set(T0 + LEASE.toMillis() + SKEW.toMillis());
    ClaimResult took = claimant.claim(key, "claimant", null, LEASE);

    assertThat(took.isTakeover()).as("a skew after the lease: %s", took).isTrue();
    assertThat(holder.complete(key, "holder", new byte[] {1}, LEASE))
        .as("the old holder is fenced")
        .isFalse();
  }

  @Test
  void aCompletedRecordEndsWithItsTtlOnTheReadersClock() {
    claimant.claim(key, "holder", null, LEASE);
    claimant.complete(key, "holder", new byte[] {7}, Duration.ofMinutes(1));
    long end = T0 + Duration.ofMinutes(1).toMillis();

    claimantClock.set(end - 1);
    ClaimResult replay = claimant.claim(key, "second", null, LEASE);
    assertThat(replay.existing().status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(replay.existing().outcome()).containsExactly(7);

    claimantClock.set(end);
    assertThat(claimant.claim(key, "third", null, LEASE).isAcquired())
        .as("a claim when the ttl ended")
        .isTrue();
  }

  @Test
  void theHolderIsFencedOnceItsOwnClockPassedTheLeaseAndTheSkew() {
    holder.claim(key, "holder", null, LEASE);
    holderClock.set(T0 + LEASE.toMillis() + SKEW.toMillis());

    assertThat(holder.renew(key, "holder", LEASE)).isFalse();
    assertThat(holder.read(key)).isEmpty();
  }
}
