package dev.idempotent.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The asynchronous face beyond what the contract checks through it: stages that are already
 * complete, arguments refused by throwing, and waits that end without a thread parked for them.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CaffeineIdempotencyStoreAsyncTest {
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration TTL = Duration.ofMinutes(5);
  private static final Duration LONG_WAIT = Duration.ofSeconds(20);

  private final AtomicLong clock = new AtomicLong(42);
  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "memory-store-executor"));
  private final CaffeineIdempotencyStore store =
      CaffeineIdempotencyStore.builder().timeSource(clock::get).executor(executor).build();
  private final RecordKey key = RecordKey.of("orders", "order-1");

  @AfterEach
  void stop() {
    store.close();
    executor.shutdownNow();
  }

  @Test
  void eachOperationAnswersWithAStageAlreadyComplete() {
    CompletionStage<ClaimResult> claim = store.claimAsync(key, "o", "fp", LEASE);
    assertThat(claim.toCompletableFuture()).isCompletedWithValueMatching(ClaimResult::isAcquired);
    assertThat(store.claimAsync(key, "other", "fp", LEASE).toCompletableFuture().join().existing())
        .extracting(r -> r.ownerToken())
        .isEqualTo("o");
    assertThat(store.renewAsync(key, "other", LEASE).toCompletableFuture())
        .isCompletedWithValue(false);
    assertThat(store.renewAsync(key, "o", LEASE).toCompletableFuture()).isCompletedWithValue(true);
    assertThat(store.completeAsync(key, "o", new byte[] {7}, TTL).toCompletableFuture())
        .isCompletedWithValue(true);
    assertThat(store.completeAsync(key, "o", new byte[] {8}, TTL).toCompletableFuture())
        .isCompletedWithValue(false);
    assertThat(store.readAsync(key).toCompletableFuture().join().orElseThrow().outcome())
        .containsExactly(7);
    assertThat(store.releaseAsync(key, "o").toCompletableFuture()).isCompletedWithValue(false);

    RecordKey other = RecordKey.of("orders", "order-2");
    store.claimAsync(other, "p", null, LEASE);
    assertThat(store.releaseAsync(other, "p").toCompletableFuture()).isCompletedWithValue(true);
    assertThat(store.readAsync(other).toCompletableFuture().join()).isEmpty();
  }

  @Test
  void aStageAnsweredTrueOrFalseCannotBeChangedByItsCaller() {
    store.claim(key, "o", null, LEASE);
    CompletableFuture<Boolean> renewed = store.renewAsync(key, "o", LEASE).toCompletableFuture();
    renewed.obtrudeValue(false);

    assertThat(store.renewAsync(key, "o", LEASE).toCompletableFuture()).isCompletedWithValue(true);
  }

  @Test
  void anInvalidArgumentIsThrownNotAnsweredByTheStage() {
    assertThatThrownBy(() -> store.claimAsync(key, "o", null, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease must be a positive duration");
    store.claim(key, "o", null, LEASE);
    assertThatThrownBy(() -> store.completeAsync(key, "o", new byte[0], Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must be a positive duration");
    assertThatThrownBy(() -> store.renewAsync(key, "o", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease must be a positive duration, was null");
    assertThat(store.read(key).orElseThrow().isCompleted()).isFalse();
  }

  @Test
  void awaitChangeAsyncCompletesAtOnceWhenNothingHoldsTheKey() {
    assertThat(store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture()).isDone();
    store.claim(key, "o", null, LEASE);
    store.complete(key, "o", new byte[0], TTL);
    assertThat(store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture()).isDone();
    assertThat(
            store
                .awaitChangeAsync(RecordKey.of("orders", "x"), Duration.ZERO)
                .toCompletableFuture())
        .isDone();
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void awaitChangeAsyncCompletesOnTheStoresExecutorWhenTheHolderCompletes() throws Exception {
    store.claim(key, "o", null, LEASE);
    long start = System.nanoTime();
    CompletableFuture<Void> change = store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the call returned without waiting")
        .isLessThan(Duration.ofSeconds(1));
    AtomicReference<String> completedOn = new AtomicReference<>();
    CompletableFuture<Void> observed =
        change.thenRun(() -> completedOn.set(Thread.currentThread().getName()));
    assertThat(change).isNotDone();
    assertThat(store.waitedKeyCount()).isEqualTo(1);

    store.complete(key, "o", new byte[] {1}, TTL);

    observed.get(5, TimeUnit.SECONDS);
    assertThat(completedOn.get()).isEqualTo("memory-store-executor");
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void awaitChangeAsyncCompletesWhenTheHolderReleasesOrTheKeyIsDeleted() throws Exception {
    store.claim(key, "o", null, LEASE);
    CompletableFuture<Void> released = store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture();
    store.release(key, "o");
    released.get(5, TimeUnit.SECONDS);

    store.claim(key, "p", null, LEASE);
    CompletableFuture<Void> deleted = store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture();
    store.delete(key);
    deleted.get(5, TimeUnit.SECONDS);
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void awaitChangeAsyncEndsAtItsMaxWaitWhenNothingChanges() throws Exception {
    store.claim(key, "o", null, LEASE);
    long start = System.nanoTime();

    store
        .awaitChangeAsync(key, Duration.ofMillis(200))
        .toCompletableFuture()
        .get(5, TimeUnit.SECONDS);

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200))
        .isLessThan(Duration.ofSeconds(3));
    assertThat(store.read(key).orElseThrow().ownerToken())
        .as("a waiter never writes")
        .isEqualTo("o");
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void awaitChangeAsyncEndsWhenTheLeaseEnds() throws Exception {
    CaffeineIdempotencyStore real = CaffeineIdempotencyStore.builder().build();
    real.claim(key, "o", null, Duration.ofMillis(200));
    long start = System.nanoTime();

    real.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture().get(5, TimeUnit.SECONDS);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    assertThat(real.claim(key, "next", null, LEASE).isAcquired()).isTrue();
    real.close();
  }

  @Test
  void manyAsynchronousWaitersTakeNoThreadOfTheirOwn() throws Exception {
    int waiters = 500;
    List<CompletableFuture<Void>> changes = new ArrayList<>();
    int threadsBefore = Thread.activeCount();
    for (int i = 0; i < waiters; i++) {
      RecordKey k = RecordKey.of("orders", "held-" + i);
      store.claim(k, "o" + i, null, LEASE);
      changes.add(store.awaitChangeAsync(k, LONG_WAIT).toCompletableFuture());
      changes.add(store.awaitChangeAsync(k, LONG_WAIT).toCompletableFuture());
    }
    assertThat(Thread.activeCount() - threadsBefore)
        .as("threads started for %s waits", 2 * waiters)
        .isLessThan(5);
    assertThat(changes).noneMatch(CompletableFuture::isDone);
    assertThat(store.waitedKeyCount()).isEqualTo(waiters);

    for (int i = 0; i < waiters; i++) {
      store.complete(RecordKey.of("orders", "held-" + i), "o" + i, new byte[] {1}, TTL);
    }

    CompletableFuture.allOf(changes.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void closeCompletesTheAsynchronousWaiters() throws Exception {
    store.claim(key, "o", null, LEASE);
    CompletableFuture<Void> change = store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture();

    store.close();

    change.get(5, TimeUnit.SECONDS);
    assertThat(store.read(key)).isEmpty();
  }

  @Test
  void blockingAndAsynchronousWaitersOfOneKeyWakeTogether() throws Exception {
    store.claim(key, "o", null, LEASE);
    CompletableFuture<Void> async = store.awaitChangeAsync(key, LONG_WAIT).toCompletableFuture();
    CompletableFuture<Void> blocking =
        CompletableFuture.runAsync(
            () -> {
              try {
                store.awaitChange(key, LONG_WAIT);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    Thread.sleep(100); // time for the blocking waiter to park

    store.complete(key, "o", new byte[] {1}, TTL);

    async.get(3, TimeUnit.SECONDS);
    blocking.get(3, TimeUnit.SECONDS);
    assertThat(store.waitedKeyCount()).isZero();
  }
}
