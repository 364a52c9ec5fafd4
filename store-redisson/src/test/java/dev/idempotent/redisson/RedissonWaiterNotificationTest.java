package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.config.Config;

/**
 * Waiters are notified when they wait, and only then: counted on a test-owned {@code redis-server}
 * by its command statistics ({@code INFO commandstats}, reset before each test), which include the
 * commands the scripts run.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonWaiterNotificationTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static RedisServerProcess server;
  private static RedissonClient client;

  private final String scope = "notify-" + UUID.randomUUID();
  private RedissonIdempotencyStore store;

  @BeforeAll
  static void start() throws Exception {
    server = RedisServerProcess.launch();
    Config config = new Config();
    config.useSingleServer().setAddress(server.url()).setConnectionMinimumIdleSize(2);
    client = Redisson.create(config);
  }

  @AfterAll
  static void stop() throws Exception {
    if (client != null) {
      client.shutdown();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void resetStatistics() throws Exception {
    store = RedissonIdempotencyStore.builder(client).build();
    assertThat(server.cli("CONFIG", "RESETSTAT")).contains("OK");
  }

  @Test
  void callsThatNobodyWaitsForPublishNothingToWaiters() throws Exception {
    RecordKey completed = RecordKey.of(scope, "completed");
    assertThat(store.claim(completed, "o1", "fp", LONG).isAcquired()).isTrue();
    assertThat(store.complete(completed, "o1", new byte[] {1}, LONG)).isTrue();
    assertThat(store.claim(completed, "o2", "fp", LONG).existing().isCompleted()).isTrue();
    RecordKey released = RecordKey.of(scope, "released");
    assertThat(store.claim(released, "o3", null, LONG).isAcquired()).isTrue();
    assertThat(store.release(released, "o3")).isTrue();
    RecordKey deleted = RecordKey.of(scope, "deleted");
    assertThat(store.claim(deleted, "o4", null, LONG).isAcquired()).isTrue();
    assertThat(store.delete(deleted)).isTrue();

    assertThat(server.commandCalls("spublish")).as("SPUBLISH").isZero();
    assertThat(server.commandCalls("publish"))
        .as("PUBLISH: the delete's store-wide announcement alone")
        .isEqualTo(1);
    assertThat(server.commandCalls("setrange")).as("SETRANGE").isZero();
  }

  @Test
  void aWaiterIsWokenByOneShardedMessageOnCompleteReleaseAndDelete() throws Exception {
    assertWokenBy(
        "complete", key -> assertThat(store.complete(key, "o", new byte[] {1}, LONG)).isTrue());
    assertWokenBy("release", key -> assertThat(store.release(key, "o")).isTrue());
    assertWokenBy("delete", key -> assertThat(store.delete(key)).isTrue());
    assertThat(server.commandCalls("spublish")).as("SPUBLISH, one per change").isEqualTo(3);
    assertThat(server.commandCalls("ssubscribe")).as("SSUBSCRIBE").isPositive();
    assertThat(server.commandCalls("subscribe")).as("SUBSCRIBE").isZero();
    assertThat(server.commandCalls("publish"))
        .as("PUBLISH: the delete's store-wide announcement alone")
        .isEqualTo(1);
  }

  private void assertWokenBy(String what, Consumer<RecordKey> change) throws Exception {
    RecordKey key = RecordKey.of(scope, "woken by " + what);
    assertThat(store.claim(key, "o", null, LONG).isAcquired()).isTrue();
    CompletableFuture<Long> waited =
        CompletableFuture.supplyAsync(
            () -> {
              long start = System.nanoTime();
              try {
                store.awaitChange(key, Duration.ofSeconds(20));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return System.nanoTime() - start;
            });
    awaitFlag(key);
    assertThat(waited).as(what).isNotDone();

    change.accept(key);

    assertThat(Duration.ofNanos(waited.get(10, TimeUnit.SECONDS)))
        .as("the wait ended by %s took", what)
        .isLessThan(Duration.ofSeconds(5));
  }

  /**
   * Two waiters on one claim: the claim is flagged once, in place, keeping its owner, fingerprint
   * and expiry; both are woken by one message; and the subscription ends with the waits.
   */
  @Test
  void theWaitersFlagChangesNothingButItselfAndOneMessageWakesEveryWaiter() throws Exception {
    RecordKey key = RecordKey.of(scope, "two waiters");
    assertThat(store.claim(key, "o", "fp", Duration.ofSeconds(30)).isAcquired()).isTrue();
    String name = store.names().recordName(key);
    byte[] before = value(name);
    IdempotencyRecord record = store.read(key).orElseThrow();

    CompletableFuture<Void> first =
        store.awaitChangeAsync(key, Duration.ofSeconds(20)).toCompletableFuture();
    CompletableFuture<Void> second =
        store.awaitChangeAsync(key, Duration.ofSeconds(20)).toCompletableFuture();
    awaitFlag(key);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.commandCalls("evalsha") < 4) { // the claim, the read and both watch steps
      assertThat(System.nanoTime() - deadline).as("both waits watching").isNegative();
      Thread.sleep(20);
    }

    byte[] after = value(name);
    assertThat(after[1]).as("the waiters flag").isEqualTo((byte) 1);
    after[1] = before[1];
    assertThat(after).as("everything else").containsExactly(before);
    assertThat(store.read(key)).hasValue(record);
    assertThat(client.getKeys().remainTimeToLive(name)).as("the lease").isBetween(20_000L, 30_000L);
    assertThat(server.commandCalls("setrange")).as("SETRANGE").isEqualTo(1);
    String channel = RecordNames.channelOf(name);
    assertThat(shardSubscribers(channel)).as("connections subscribed").isEqualTo(1);
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();

    assertThat(store.complete(key, "o", new byte[] {1}, LONG)).isTrue();

    CompletableFuture.allOf(first, second).get(5, TimeUnit.SECONDS);
    assertThat(server.commandCalls("spublish")).as("SPUBLISH").isEqualTo(1);
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (shardSubscribers(channel) != 0) {
      assertThat(System.nanoTime() - deadline).as("unsubscribed within 5 s").isNegative();
      Thread.sleep(20);
    }
  }

  /** Waits until a waiter has flagged the claim of {@code key}. */
  private void awaitFlag(RecordKey key) throws InterruptedException {
    String name = store.names().recordName(key);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (value(name)[1] != 1) {
      assertThat(System.nanoTime() - deadline).as("a waiter flagged %s", key).isNegative();
      Thread.sleep(10);
    }
  }

  /** {@code PUBSUB SHARDNUMSUB channel}: the connections subscribed to the sharded channel. */
  private static long shardSubscribers(String channel) throws Exception {
    String[] lines = server.cli("PUBSUB", "SHARDNUMSUB", channel).trim().split("\\R");
    return Long.parseLong(lines[lines.length - 1].trim());
  }

  private static byte[] value(String name) {
    return client.<byte[]>getBucket(name, ByteArrayCodec.INSTANCE).get();
  }
}
