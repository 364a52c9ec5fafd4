package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.redisson.internal.RedissonStoreProvider;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

/**
 * A complete or release that reaches Redis twice (Redisson resends a command whose reply is late;
 * the executor repeats a write that failed on an interrupted thread) answers {@code true} when the
 * first one was applied, instead of reporting the holder fenced.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonResentCommandTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static RedissonClient client;

  private final String scope = "resent-" + UUID.randomUUID();

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
    return RedissonIdempotencyStore.builder(client).keyPrefix("idem-resent:").build();
  }

  @Test
  void aRepeatedCompleteByTheOwnerWithTheSameOutcomeAnswersTrue() {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "complete");
    store.claim(key, "owner-1", null, LONG);

    assertThat(store.complete(key, "owner-1", new byte[] {1, 2}, LONG))
        .as("first complete")
        .isTrue();
    assertThat(store.complete(key, "owner-1", new byte[] {1, 2}, LONG))
        .as("the same complete again")
        .isTrue();

    assertThat(store.complete(key, "owner-1", new byte[] {9}, LONG))
        .as("another outcome")
        .isFalse();
    assertThat(store.complete(key, "owner-2", new byte[] {1, 2}, LONG))
        .as("another owner")
        .isFalse();
    IdempotencyRecord record = store.read(key).orElseThrow();
    assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(record.outcome()).containsExactly(1, 2);
  }

  @Test
  void aRepeatedReleaseByTheOwnerAnswersTrueAndLeavesTheNextHolderAlone() {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "release");
    store.claim(key, "owner-1", null, LONG);

    assertThat(store.release(key, "owner-1")).as("first release").isTrue();
    assertThat(store.release(key, "owner-1")).as("the same release again").isTrue();
    assertThat(store.release(key, "owner-2"))
        .as("a release by a caller that never held it")
        .isFalse();

    assertThat(store.claim(key, "owner-3", null, LONG).isAcquired()).isTrue();
    assertThat(store.release(key, "owner-1"))
        .as("the first release again, after a new claim")
        .isTrue();
    assertThat(store.read(key).orElseThrow().ownerToken())
        .as("the new holder keeps the key")
        .isEqualTo("owner-3");
  }

  @Test
  void aCompleteWhoseFirstReplyWasLateIsReportedRecorded() throws Exception {
    try (RedisServerProcess server = RedisServerProcess.launch();
        IdempotencyStore store = storeWithTimeout(server, Duration.ofSeconds(2))) {
      RecordKey key = RecordKey.of(scope, "late-complete");
      assertThat(store.claim(key, "owner-1", null, LONG).isAcquired()).isTrue();

      boolean recorded =
          whilePaused(server, () -> store.complete(key, "owner-1", new byte[] {7}, LONG));

      assertThat(recorded).as("complete answered after Redisson sent it again").isTrue();
      assertThat(store.read(key).orElseThrow().outcome()).containsExactly(7);
    }
  }

  @Test
  void aReleaseWhoseFirstReplyWasLateIsReportedReleased() throws Exception {
    try (RedisServerProcess server = RedisServerProcess.launch();
        IdempotencyStore store = storeWithTimeout(server, Duration.ofSeconds(2))) {
      RecordKey key = RecordKey.of(scope, "late-release");
      assertThat(store.claim(key, "owner-1", null, LONG).isAcquired()).isTrue();

      boolean released = whilePaused(server, () -> store.release(key, "owner-1"));

      assertThat(released).as("release answered after Redisson sent it again").isTrue();
      assertThat(store.read(key)).isEmpty();
    }
  }

  /**
   * One retry after 100 ms (the auto-configured store's settings), command timeout {@code timeout}.
   */
  private static IdempotencyStore storeWithTimeout(RedisServerProcess server, Duration timeout) {
    return new RedissonStoreProvider()
        .create(
            StoreSettings.of(
                Map.of(
                    dev.idempotent.redisson.RedissonStoreSettings.ADDRESS.name(),
                    server.url(),
                    dev.idempotent.redisson.RedissonStoreSettings.TIMEOUT.name(),
                    timeout.toMillis() + "ms")));
  }

  /**
   * Runs {@code write} while the server is frozen past the first attempt's timeout (2 s) but not
   * past the resent attempt's (sent at about 2.1 s, timing out at about 4.1 s): both reach Redis
   * when it runs again at 3 s, and the caller gets the answer to the second.
   */
  private static <T> T whilePaused(RedisServerProcess server, java.util.function.Supplier<T> write)
      throws Exception {
    server.pause();
    CompletableFuture<T> result;
    try {
      result = CompletableFuture.supplyAsync(write);
      Thread.sleep(3_000);
    } finally {
      server.resume();
    }
    return result.get(20, TimeUnit.SECONDS);
  }
}
