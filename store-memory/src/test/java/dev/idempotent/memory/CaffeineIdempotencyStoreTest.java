package dev.idempotent.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the contract kit does not check: this store's builder, takeover window, copies, eviction and
 * waiters.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CaffeineIdempotencyStoreTest {
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration TTL = Duration.ofMinutes(5);

  private final AtomicLong clock = new AtomicLong(42);
  private final CaffeineIdempotencyStore store =
      CaffeineIdempotencyStore.builder().timeSource(clock::get).executor(Runnable::run).build();
  private final RecordKey key = RecordKey.of("orders", "order-1");

  @Test
  void aNearCacheIsNotPutInFrontOfTheMemoryStore() {
    dev.idempotent.IdempotencyConfig config =
        dev.idempotent.IdempotencyConfig.builder()
            .defaultStore(store)
            .store("other", store)
            .nearCache(1000)
            .build();
    assertThat(config.defaultStore()).isSameAs(store);
    assertThat(config.store("other")).isSameAs(store);
    assertThat(config.nearCacheMaximumSize()).isEqualTo(1000);
  }

  @Test
  void sizeEvictionNeverDropsAClaimInProgress() {
    CaffeineIdempotencyStore small =
        CaffeineIdempotencyStore.builder()
            .maximumSize(10)
            .timeSource(clock::get)
            .executor(Runnable::run)
            .build();
    Duration lease = Duration.ofMinutes(5);
    for (int i = 0; i < 20; i++) {
      assertThat(
              small
                  .claim(RecordKey.of("evict", "running-" + i), "holder-" + i, null, lease)
                  .isAcquired())
          .isTrue();
    }
    for (int i = 0; i < 500; i++) {
      RecordKey done = RecordKey.of("evict", "done-" + i);
      small.claim(done, "o", null, lease);
      assertThat(small.complete(done, "o", new byte[] {1}, Duration.ofHours(1))).isTrue();
    }
    for (int i = 0; i < 20; i++) {
      RecordKey running = RecordKey.of("evict", "running-" + i);
      assertThat(small.complete(running, "holder-" + i, new byte[] {2}, Duration.ofHours(1)))
          .as("claim %s survived size eviction", i)
          .isTrue();
    }
    long completedKept = 0;
    for (int i = 0; i < 500; i++) {
      completedKept += small.read(RecordKey.of("evict", "done-" + i)).isPresent() ? 1 : 0;
    }
    assertThat(completedKept).isLessThanOrEqualTo(10);
  }

  @Test
  void builderRejectsANonPositiveMaximumSizeNamingTheValue() {
    assertThatThrownBy(() -> CaffeineIdempotencyStore.builder().maximumSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumSize must be positive, was 0");
    assertThatThrownBy(() -> CaffeineIdempotencyStore.builder().maximumSize(-7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was -7");
    assertThatThrownBy(() -> CaffeineIdempotencyStore.builder().timeSource(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeSource");
  }

  @Test
  void builderIsImmutable() {
    CaffeineIdempotencyStore.Builder defaults = CaffeineIdempotencyStore.builder();
    CaffeineIdempotencyStore.Builder small = defaults.maximumSize(10);
    assertThat(defaults.build()).hasToString("CaffeineIdempotencyStore{maximumSize=100000}");
    assertThat(small.build()).hasToString("CaffeineIdempotencyStore{maximumSize=10}");
  }

  @Test
  void rejectsNonPositiveLeasesAndTtls() {
    assertThatThrownBy(() -> store.claim(key, "o", null, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease must be a positive duration");
    store.claim(key, "o", null, LEASE);
    assertThatThrownBy(() -> store.complete(key, "o", new byte[0], Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must be a positive duration");
    assertThat(store.read(key).orElseThrow().isCompleted()).isFalse();
  }

  @Test
  void takeoverOfAnEndedLeaseIsReportedAsTakeover() {
    store.claim(key, "old", null, LEASE);
    clock.addAndGet(LEASE.toNanos());

    ClaimResult result = store.claim(key, "new", null, LEASE);

    assertThat(result.isAcquired()).isTrue();
    assertThat(result.isTakeover()).as("%s", result).isTrue();
  }

  @Test
  void aClaimLongPastItsLeaseIsForgottenAndTheKeySimplyAcquired() {
    store.claim(key, "old", null, LEASE);
    clock.addAndGet(LEASE.toNanos() + MemoryRecord.TAKEOVER_WINDOW_NANOS);

    ClaimResult result = store.claim(key, "new", null, LEASE);

    assertThat(result.isAcquired()).isTrue();
    assertThat(result.isTakeover()).isFalse();
  }

  @Test
  void leaseEndsExactlyOnTheClock() {
    store.claim(key, "o", null, LEASE);
    clock.addAndGet(LEASE.toNanos() - 1);
    assertThat(store.read(key)).isPresent();
    assertThat(store.read(key).orElseThrow().expiresIn()).isEqualTo(Duration.ofNanos(1));
    clock.addAndGet(1);
    assertThat(store.read(key)).isEmpty();
  }

  @Test
  void ttlEndsExactlyOnTheClock() {
    store.claim(key, "o", null, LEASE);
    store.complete(key, "o", new byte[] {1}, TTL);
    clock.addAndGet(TTL.toNanos() - 1);
    assertThat(store.claim(key, "other", null, LEASE).existing().isCompleted()).isTrue();
    clock.addAndGet(1);
    assertThat(store.claim(key, "other", null, LEASE).isAcquired()).isTrue();
  }

  @Test
  void readReturnsACopyOfTheOutcome() {
    store.claim(key, "o", null, LEASE);
    store.complete(key, "o", new byte[] {1, 2, 3}, TTL);

    store.read(key).orElseThrow().outcome()[0] = 9;

    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(1, 2, 3);
  }

  @Test
  void replayReturnsTheStoredOutcome() {
    store.claim(key, "o", "fp", LEASE);
    store.complete(key, "o", new byte[] {4, 5}, TTL);

    IdempotencyRecord replay = store.claim(key, "other", "fp", LEASE).existing();

    assertThat(replay.outcome()).containsExactly(4, 5);
    assertThat(replay.expiresIn()).isEqualTo(TTL);
  }

  @Test
  void replayAnswersAgeByAtMostAMillisecond() {
    store.claim(key, "o", "fp", LEASE);
    store.complete(key, "o", new byte[] {4, 5}, TTL);
    store.claim(key, "other", "fp", LEASE);

    clock.addAndGet(Duration.ofMillis(1).toNanos() - 1);
    assertThat(store.claim(key, "other", "fp", LEASE).existing().expiresIn()).isEqualTo(TTL);
    clock.addAndGet(1);
    assertThat(store.claim(key, "other", "fp", LEASE).existing().expiresIn())
        .isEqualTo(TTL.minusMillis(1));
    RecordKey twin = RecordKey.of("orders", "order-1");
    assertThat(store.claim(twin, "other", "fp", LEASE).existing().key()).isEqualTo(twin);
    clock.addAndGet(TTL.toNanos());
    assertThat(store.claim(key, "other", "fp", LEASE).isAcquired()).isTrue();
  }

  @Test
  void evictsCompletedRecordsBeyondMaximumSize() {
    CaffeineIdempotencyStore small =
        CaffeineIdempotencyStore.builder()
            .maximumSize(100)
            .timeSource(clock::get)
            .executor(Runnable::run)
            .build();
    for (int i = 0; i < 1_000; i++) {
      small.claim(RecordKey.of("s", "k" + i), "o" + i, null, LEASE);
      small.complete(RecordKey.of("s", "k" + i), "o" + i, new byte[] {1}, TTL);
    }
    small.cleanUp();
    assertThat(small.estimatedSize()).isLessThanOrEqualTo(100);
  }

  @Test
  void whenFullTheOldestCompletedRecordsGoFirstAndFreshOnesAreReplayed() {
    // evictions on the calling thread: on the default executor they run just after the completion,
    // so an exact count read right away could still see a few records on their way out
    CaffeineIdempotencyStore full =
        CaffeineIdempotencyStore.builder().maximumSize(10_000).executor(Runnable::run).build();
    Duration ttl = Duration.ofHours(1);
    // A store that has run for a while: 20,000 calls completed, of which the last 10,000 fill it.
    for (int i = 0; i < 20_000; i++) {
      RecordKey old = RecordKey.of("full", "old-" + i);
      assertThat(full.claim(old, "o", null, LEASE).isAcquired()).isTrue();
      assertThat(full.complete(old, "o", new byte[] {1}, ttl)).isTrue();
    }

    int reExecutions = 0;
    for (int i = 0; i < 4_000; i++) {
      RecordKey fresh = RecordKey.of("full", "fresh-" + i);
      assertThat(full.claim(fresh, "first-" + i, null, LEASE).isAcquired()).isTrue();
      assertThat(full.complete(fresh, "first-" + i, new byte[] {2}, ttl)).isTrue();
      reExecutions += full.claim(fresh, "retry-" + i, null, LEASE).isAcquired() ? 1 : 0;
    }
    for (int i = 0; i < 4_000; i++) {
      ClaimResult retry = full.claim(RecordKey.of("full", "fresh-" + i), "later-" + i, null, LEASE);
      reExecutions += retry.isAcquired() ? 1 : 0;
    }

    assertThat(reExecutions)
        .as("retries of the 4,000 records completed last that ran again")
        .isZero();
    int gone = 0;
    for (int i = 0; i < 14_000; i++) {
      gone += full.read(RecordKey.of("full", "old-" + i)).isPresent() ? 0 : 1;
    }
    int newestOldKept = 0;
    for (int i = 14_000; i < 20_000; i++) {
      newestOldKept += full.read(RecordKey.of("full", "old-" + i)).isPresent() ? 1 : 0;
    }
    assertThat(gone).as("the 14,000 oldest records, evicted to make room").isEqualTo(14_000);
    assertThat(newestOldKept).as("the 6,000 newest of the older records").isEqualTo(6_000);
    assertThat(full.completedCount()).isEqualTo(10_000);
  }

  @Test
  void expiredAndReplacedRecordsNoLongerCountTowardsTheMaximum() {
    CaffeineIdempotencyStore small =
        CaffeineIdempotencyStore.builder()
            .maximumSize(3)
            .timeSource(clock::get)
            .executor(Runnable::run)
            .build();
    complete(small, "long-a", TTL);
    complete(small, "short-b", Duration.ofSeconds(1));
    complete(small, "long-c", TTL);
    clock.addAndGet(Duration.ofSeconds(2).toNanos());
    small.cleanUp();
    assertThat(small.completedCount()).as("the expired record no longer counts").isEqualTo(2);

    complete(small, "long-d", TTL);
    assertThat(small.read(RecordKey.of("s", "long-a")))
        .as("oldest live record, still within the maximum")
        .isPresent();
    complete(small, "short-b", TTL);
    assertThat(small.completedCount()).isEqualTo(3);
    assertThat(small.read(RecordKey.of("s", "long-a")))
        .as("the oldest, evicted for the re-completed key")
        .isEmpty();
    assertThat(small.read(RecordKey.of("s", "long-c"))).isPresent();
    assertThat(small.read(RecordKey.of("s", "long-d"))).isPresent();
    assertThat(small.read(RecordKey.of("s", "short-b")).orElseThrow().isCompleted()).isTrue();

    clock.addAndGet(TTL.toNanos());
    small.cleanUp();
    assertThat(small.completedCount()).as("nothing is held for records that expired").isZero();
    small.close();
  }

  @Test
  void aRecordClaimedAgainOnceExpiredNoLongerCountsBeforeTheCacheCleansUp() {
    CaffeineIdempotencyStore small =
        CaffeineIdempotencyStore.builder()
            .maximumSize(3)
            .timeSource(clock::get)
            .executor(Runnable::run)
            .build();
    complete(small, "long-a", TTL);
    complete(small, "short-b", Duration.ofSeconds(1));
    complete(small, "long-c", TTL);
    clock.addAndGet(Duration.ofSeconds(2).toNanos());

    RecordKey b = RecordKey.of("s", "short-b");
    assertThat(small.claim(b, "again", null, Duration.ofSeconds(30)).isAcquired()).isTrue();
    assertThat(small.completedCount())
        .as("the expired record was replaced by the new claim")
        .isEqualTo(2);
    assertThat(small.complete(b, "again", new byte[] {2}, TTL)).isTrue();
    complete(small, "long-d", TTL);

    assertThat(small.completedCount()).isEqualTo(3);
    assertThat(small.read(RecordKey.of("s", "long-a")))
        .as("the oldest, evicted for the fourth live record")
        .isEmpty();
    assertThat(small.read(b).orElseThrow().outcome()).containsExactly(2);
    small.close();
  }

  @Test
  void deletedRecordsNoLongerCountTowardsTheMaximum() {
    CaffeineIdempotencyStore small =
        CaffeineIdempotencyStore.builder()
            .maximumSize(3)
            .timeSource(clock::get)
            .executor(Runnable::run)
            .build();
    complete(small, "a", TTL);
    complete(small, "b", TTL);
    complete(small, "c", TTL);

    assertThat(small.delete(RecordKey.of("s", "a"))).isTrue();
    assertThat(small.completedCount()).as("the deleted record no longer counts").isEqualTo(2);
    assertThat(small.delete(RecordKey.of("s", "a"))).as("a second delete").isFalse();
    complete(small, "d", TTL);

    assertThat(small.completedCount()).isEqualTo(3);
    assertThat(small.read(RecordKey.of("s", "b")))
        .as("within the maximum once the deleted one is gone")
        .isPresent();
    assertThat(small.read(RecordKey.of("s", "c"))).isPresent();
    assertThat(small.read(RecordKey.of("s", "d"))).isPresent();
    assertThat(small.delete(RecordKey.of("s", "b"))).isTrue();
    assertThat(small.delete(RecordKey.of("s", "c"))).isTrue();
    assertThat(small.delete(RecordKey.of("s", "d"))).isTrue();
    assertThat(small.completedCount()).as("nothing is held for deleted records").isZero();
    small.close();
  }

  /**
   * The completing thread leaves the eviction to the cache's executor, within a bounded slack: with
   * an executor that never runs anything, the store still keeps at most the maximum size plus
   * {@code maximumSize / 64}.
   */
  @Test
  void evictionRunsOnTheExecutorAndTheSlackBoundsWhatWaitsForIt() {
    java.util.List<Runnable> queued = new java.util.ArrayList<>();
    CaffeineIdempotencyStore store =
        CaffeineIdempotencyStore.builder()
            .maximumSize(640)
            .timeSource(clock::get)
            .executor(queued::add)
            .build();
    for (int i = 0; i < 650; i++) {
      RecordKey k = RecordKey.of("slack", "k" + i);
      store.claim(k, "o" + i, null, LEASE);
      store.complete(k, "o" + i, new byte[] {1}, TTL);
    }
    assertThat(store.completedCount()).as("within the slack, nothing evicted yet").isEqualTo(650);
    assertThat(queued).as("eviction runs queued").isNotEmpty();
    for (int i = 650; i < 700; i++) {
      RecordKey k = RecordKey.of("slack", "k" + i);
      store.claim(k, "o" + i, null, LEASE);
      store.complete(k, "o" + i, new byte[] {1}, TTL);
    }
    assertThat(store.completedCount()).as("past the slack").isEqualTo(640 + 10);
    assertThat(store.read(RecordKey.of("slack", "k0"))).as("the oldest").isEmpty();
    new java.util.ArrayList<>(queued).forEach(Runnable::run);
    assertThat(store.completedCount()).isEqualTo(640);
    assertThat(store.read(RecordKey.of("slack", "k59"))).isEmpty();
    assertThat(store.read(RecordKey.of("slack", "k60"))).isPresent();
    assertThat(store.read(RecordKey.of("slack", "k699"))).isPresent();
    store.close();
  }

  @Test
  void concurrentCompletionsKeepExactlyTheMaximum() throws Exception {
    // The evictions run on an executor of the test's, so that the test can wait for the ones the
    // completions queued: on the common pool, one could still be removing a record it had taken
    // out of the order while the test counts the records it reads back.
    ExecutorService evictions = Executors.newSingleThreadExecutor();
    CaffeineIdempotencyStore small =
        CaffeineIdempotencyStore.builder().maximumSize(500).executor(evictions).build();
    int threads = 4;
    int perThread = 2_000;
    CountDownLatch start = new CountDownLatch(1);
    java.util.List<Thread> workers = new java.util.ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < perThread; i++) {
                    RecordKey k = RecordKey.of("race", thread + "-" + i);
                    small.claim(k, "o", null, LEASE);
                    small.complete(k, "o", new byte[] {1}, TTL);
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join(20_000);
    }
    // The evictions run on the cache's executor: until they have, a few more may be kept.
    int countedAtOnce = small.completedCount();
    evictions.submit(() -> {}).get(20, TimeUnit.SECONDS); // after every eviction queued before it
    evictions.shutdown();

    assertThat(failure.get()).isNull();
    assertThat(countedAtOnce).isBetween(500, 500 + 7);
    small.cleanUp();
    assertThat(small.completedCount()).isEqualTo(500);
    int kept = 0;
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i++) {
        kept += small.read(RecordKey.of("race", t + "-" + i)).isPresent() ? 1 : 0;
      }
    }
    assertThat(kept).isEqualTo(500);
  }

  private static void complete(CaffeineIdempotencyStore target, String key, Duration ttl) {
    RecordKey k = RecordKey.of("s", key);
    assertThat(target.claim(k, "o-" + key, null, LEASE).isAcquired())
        .as("claim of %s", key)
        .isTrue();
    assertThat(target.complete(k, "o-" + key, new byte[] {1}, ttl))
        .as("complete of %s", key)
        .isTrue();
  }

  @Test
  void expiredRecordsAreDroppedFromTheCache() {
    for (int i = 0; i < 50; i++) {
      RecordKey k = RecordKey.of("s", "k" + i);
      store.claim(k, "o", null, LEASE);
      store.complete(k, "o", new byte[] {1}, TTL);
    }
    clock.addAndGet(TTL.toNanos());
    store.cleanUp();
    assertThat(store.estimatedSize()).isZero();
  }

  @Test
  void awaitChangeReturnsAtOnceWhenNothingHoldsTheKey() throws InterruptedException {
    long start = System.nanoTime();
    store.awaitChange(key, Duration.ofSeconds(20));
    store.claim(key, "o", null, LEASE);
    store.complete(key, "o", new byte[0], TTL);
    store.awaitChange(key, Duration.ofSeconds(20));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void awaitChangeReturnsWhenTheLeaseEnds() throws InterruptedException {
    CaffeineIdempotencyStore real = CaffeineIdempotencyStore.builder().build();
    real.claim(key, "o", null, Duration.ofMillis(200));

    long start = System.nanoTime();
    real.awaitChange(key, Duration.ofSeconds(20));

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(real.claim(key, "next", null, LEASE).isAcquired()).isTrue();
  }

  @Test
  void manyWaitersWakeOnCompleteAndTheRegistryEmpties() throws Exception {
    store.claim(key, "o", null, LEASE);
    int waiters = 8;
    CountDownLatch done = new CountDownLatch(waiters);
    for (int i = 0; i < waiters; i++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  store.awaitChange(key, Duration.ofSeconds(20));
                  done.countDown();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      t.setDaemon(true);
      t.start();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (store.waitedKeyCount() == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(5);
    }
    Thread.sleep(100);

    store.complete(key, "o", new byte[] {1}, TTL);

    assertThat(done.await(3, TimeUnit.SECONDS)).as("all waiters woke").isTrue();
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void interruptedWaiterThrowsAndLeavesNoRegistration() throws Exception {
    store.claim(key, "o", null, LEASE);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                store.awaitChange(key, Duration.ofSeconds(20));
              } catch (Throwable t) {
                thrown.set(t);
              }
            });
    waiter.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (store.waitedKeyCount() == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(5);
    }

    waiter.interrupt();
    waiter.join(5_000);

    assertThat(waiter.isAlive()).isFalse();
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(store.waitedKeyCount()).isZero();
  }

  @Test
  void closeWakesWaitersAndDropsRecords() throws Exception {
    store.claim(key, "o", null, LEASE);
    Thread waiter =
        new Thread(
            () -> {
              try {
                store.awaitChange(key, Duration.ofSeconds(20));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (store.waitedKeyCount() == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(5);
    }

    store.close();
    waiter.join(3_000);

    assertThat(waiter.isAlive()).as("waiter still blocked after close").isFalse();
    assertThat(store.read(key)).isEmpty();
  }
}
