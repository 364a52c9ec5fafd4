package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.redisson.internal.RedissonStoreProvider;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;

/**
 * The store through its non-blocking face, {@link AsyncIdempotencyStore}: the protocol, failures
 * that complete the stage (never thrown), waits that end from the message or from the timer, and
 * calls that return at once while Redis hangs.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedissonAsyncStoreTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static RedissonClient client;

  private final String scope = "async-" + UUID.randomUUID();

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
    return RedissonIdempotencyStore.builder(client).keyPrefix("idem-async:").build();
  }

  private static <T> T join(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void theProtocolThroughTheNonBlockingFace() throws Exception {
    AsyncIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "k");

    assertThat(join(store.claimAsync(key, "o1", "fp", LONG)).isAcquired()).isTrue();
    IdempotencyRecord held = join(store.claimAsync(key, "o2", "fp", LONG)).existing();
    assertThat(held.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(held.ownerToken()).isEqualTo("o1");
    assertThat(held.fingerprint()).isEqualTo("fp");
    assertThat(held.expiresIn()).isGreaterThan(Duration.ofSeconds(50));
    assertThat(join(store.renewAsync(key, "o2", LONG))).as("renew by another").isFalse();
    assertThat(join(store.renewAsync(key, "o1", LONG))).as("renew by the holder").isTrue();
    assertThat(join(store.completeAsync(key, "o2", new byte[] {9}, LONG))).isFalse();
    assertThat(join(store.completeAsync(key, "o1", new byte[] {1, 2}, LONG))).isTrue();
    assertThat(join(store.completeAsync(key, "o1", new byte[] {1, 2}, LONG)))
        .as("the same complete again")
        .isTrue();
    IdempotencyRecord completed = join(store.readAsync(key)).orElseThrow();
    assertThat(completed.outcome()).containsExactly(1, 2);
    assertThat(completed.fingerprint()).isEqualTo("fp");
    ClaimResult replay = join(store.claimAsync(key, "o3", "fp", LONG));
    assertThat(replay.existing().isCompleted()).isTrue();
    assertThat(replay.existing().outcome()).containsExactly(1, 2);
    assertThat(join(store.releaseAsync(key, "o1"))).as("release of a completed record").isFalse();

    RecordKey released = RecordKey.of(scope, "released");
    assertThat(join(store.claimAsync(released, "o1", null, LONG)).isAcquired()).isTrue();
    assertThat(join(store.releaseAsync(released, "o1"))).isTrue();
    assertThat(join(store.releaseAsync(released, "o1"))).as("the same release again").isTrue();
    assertThat(join(store.releaseAsync(released, "o2"))).as("a release by another").isFalse();
    assertThat(join(store.readAsync(released))).isEmpty();
    assertThat(join(store.readAsync(RecordKey.of(scope, "missing")))).isEqualTo(Optional.empty());
  }

  @Test
  void failuresCompleteTheStageAndBadArgumentsAreThrown() throws Exception {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "a list");
    String name = store.names().recordName(key);
    client.getList(name, StringCodec.INSTANCE).add("x");
    try {
      CompletionStage<ClaimResult> claim = store.claimAsync(key, "o", null, LONG);
      assertThatThrownBy(() -> join(claim))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining("Redis holds a list");
      assertThatThrownBy(() -> join(store.readAsync(key)))
          .cause()
          .isInstanceOf(IdempotencyOutcomeException.class);
      assertThat(join(store.completeAsync(key, "o", new byte[] {1}, LONG))).isFalse();
      assertThat(client.getList(name, StringCodec.INSTANCE).readAll()).containsExactly("x");
    } finally {
      client.getKeys().delete(name);
    }
    assertThatThrownBy(() -> store.claimAsync(key, "o", null, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> store.completeAsync(key, "", new byte[0], LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ownerToken");
  }

  @Test
  void aWaitEndsWithTheChangeTheLeaseOrTheTimerAndAtOnceWithoutAClaim() throws Exception {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "waited for");
    assertThat(store.claim(key, "o", null, LONG).isAcquired()).isTrue();
    CompletableFuture<Void> wait =
        store.awaitChangeAsync(key, Duration.ofSeconds(20)).toCompletableFuture();
    awaitFlag(store, key);
    assertThat(wait).isNotDone();
    long start = System.nanoTime();
    assertThat(join(store.completeAsync(key, "o", new byte[] {1}, LONG))).isTrue();
    wait.get(5, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("ended by the completion")
        .isLessThan(Duration.ofSeconds(3));

    RecordKey nobody = RecordKey.of(scope, "nobody changes it");
    assertThat(store.claim(nobody, "o", null, LONG).isAcquired()).isTrue();
    start = System.nanoTime();
    store.awaitChangeAsync(nobody, Duration.ofMillis(300)).toCompletableFuture().get(5, SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("ended by maxWait")
        .isBetween(Duration.ofMillis(250), Duration.ofMillis(2500));

    RecordKey dying = RecordKey.of(scope, "dead holder");
    assertThat(store.claim(dying, "o", null, Duration.ofMillis(400)).isAcquired()).isTrue();
    start = System.nanoTime();
    store.awaitChangeAsync(dying, Duration.ofSeconds(20)).toCompletableFuture().get(5, SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("ended with the lease")
        .isLessThan(Duration.ofSeconds(3));

    for (RecordKey done : List.of(key, RecordKey.of(scope, "missing"))) {
      start = System.nanoTime();
      store.awaitChangeAsync(done, Duration.ofSeconds(20)).toCompletableFuture().get(5, SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("ended at once on %s", done)
          .isLessThan(Duration.ofSeconds(2));
    }
  }

  private static final TimeUnit SECONDS = TimeUnit.SECONDS;

  @Test
  void cancellingAWaitEndsItsSubscription() throws Exception {
    RedissonIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "cancelled");
    assertThat(store.claim(key, "o", null, LONG).isAcquired()).isTrue();
    String channel = RecordNames.channelOf(store.names().recordName(key));
    CompletableFuture<Void> wait =
        store.awaitChangeAsync(key, Duration.ofSeconds(30)).toCompletableFuture();
    awaitFlag(store, key);
    assertThat(client.getShardedTopic(channel).countListeners()).isEqualTo(1);

    wait.cancel(false);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (client.getShardedTopic(channel).countListeners() > 0) {
      assertThat(System.nanoTime() - deadline).as("listener removed within 5 s").isNegative();
      Thread.sleep(10);
    }
  }

  /**
   * While Redis hangs, every method returns at once with a stage that is not complete; the stages
   * then fail with redacted store exceptions, completed on a thread of the client's, and a wait
   * ends by its timer.
   */
  @Test
  void nothingBlocksWhileRedisHangs() throws Exception {
    try (RedisServerProcess server = RedisServerProcess.launch();
        IdempotencyStore blocking =
            new RedissonStoreProvider()
                .create(
                    StoreSettings.of(
                        Map.of(
                            dev.idempotent.redisson.RedissonStoreSettings.ADDRESS.name(),
                            server.url(),
                            dev.idempotent.redisson.RedissonStoreSettings.TIMEOUT.name(),
                            "1s")))) {
      AsyncIdempotencyStore store = (AsyncIdempotencyStore) blocking;
      String secret = "card=4111111111111111";
      RecordKey held = RecordKey.of(scope, secret);
      assertThat(blocking.claim(held, "o", null, LONG).isAcquired()).isTrue();
      Thread caller = Thread.currentThread();
      List<CompletableFuture<?>> calls = new ArrayList<>();
      AtomicReference<Thread> completedOn = new AtomicReference<>();
      server.pause();
      try {
        long start = System.nanoTime();
        CompletableFuture<?> first =
            store
                .claimAsync(RecordKey.of(scope, secret + "2"), "o", null, LONG)
                .toCompletableFuture();
        // noted before anything else can happen: registered on a future that is already done, the
        // callback would run on this thread
        CountDownLatch firstDone = new CountDownLatch(1);
        first.whenComplete(
            (r, e) -> {
              completedOn.set(Thread.currentThread());
              firstDone.countDown();
            });
        calls.add(first);
        calls.add(store.completeAsync(held, "o", new byte[] {1}, LONG).toCompletableFuture());
        calls.add(store.renewAsync(held, "o", LONG).toCompletableFuture());
        calls.add(store.releaseAsync(held, "o").toCompletableFuture());
        calls.add(store.readAsync(held).toCompletableFuture());
        CompletableFuture<Void> wait =
            store.awaitChangeAsync(held, Duration.ofMillis(1500)).toCompletableFuture();
        Duration issued = Duration.ofNanos(System.nanoTime() - start);
        assertThat(issued).as("six calls issued in").isLessThan(Duration.ofMillis(900));
        for (CompletableFuture<?> call : calls) {
          assertThat(call).isNotDone();
        }
        // awaited by the latch, not by get(): a thread blocked in get() may run the callbacks of
        // the future it waits for itself when it wakes, and would be noted as the completing one
        assertThat(firstDone.await(15, TimeUnit.SECONDS)).as("first call completed").isTrue();
        for (CompletableFuture<?> call : calls) {
          assertThatThrownBy(() -> call.get(15, TimeUnit.SECONDS))
              .isInstanceOf(ExecutionException.class)
              .cause()
              .isInstanceOf(IdempotencyStoreException.class)
              .hasMessageStartingWith("Redis ")
              .hasMessageContaining("key#")
              .satisfies(e -> assertThat(e.getMessage()).doesNotContain("4111111111111111"));
        }
        try {
          wait.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(IdempotencyStoreException.class);
        }
        assertThat(completedOn.get()).as("completed on").isNotNull().isNotSameAs(caller);
      } finally {
        server.resume();
      }
    }
  }

  @Test
  void aFlushedScriptIsLoadedAgainWithoutBlocking() throws Exception {
    try (RedisServerProcess server = RedisServerProcess.launch();
        IdempotencyStore blocking =
            new RedissonStoreProvider()
                .create(
                    StoreSettings.of(
                        Map.of(
                            dev.idempotent.redisson.RedissonStoreSettings.ADDRESS.name(),
                            server.url())))) {
      AsyncIdempotencyStore store = (AsyncIdempotencyStore) blocking;
      RecordKey key = RecordKey.of(scope, "flushed");
      assertThat(server.cli("SCRIPT", "FLUSH")).contains("OK");
      assertThat(join(store.claimAsync(key, "o", null, LONG)).isAcquired()).isTrue();
      assertThat(server.cli("SCRIPT", "FLUSH")).contains("OK");
      assertThat(join(store.completeAsync(key, "o", new byte[] {3}, LONG))).isTrue();
      assertThat(server.cli("SCRIPT", "FLUSH")).contains("OK");
      assertThat(join(store.readAsync(key)).orElseThrow().outcome()).containsExactly(3);
    }
  }

  private static void awaitFlag(RedissonIdempotencyStore store, RecordKey key)
      throws InterruptedException {
    String name = store.names().recordName(key);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (client.<byte[]>getBucket(name, ByteArrayCodec.INSTANCE).get()[1] != 1) {
      assertThat(System.nanoTime() - deadline).as("a waiter flagged %s", key).isNegative();
      Thread.sleep(10);
    }
  }
}
