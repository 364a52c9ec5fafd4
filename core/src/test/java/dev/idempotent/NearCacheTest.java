package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.internal.NearCacheStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.DeleteAnnouncingStore;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The near cache of completed outcomes, through the programmatic API, on the fake-clock store. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NearCacheTest {
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("orders.submit")
          .resultType(Receipt.class)
          .ttl(Duration.ofMinutes(10))
          .build();
  private static final IdempotencyPolicy REJECT_IN_PROGRESS =
      IdempotencyPolicy.builder("orders.submit")
          .resultType(Receipt.class)
          .ttl(Duration.ofMinutes(10))
          .onInProgress(OnInProgress.REJECT)
          .build();

  record Receipt(String id, int run) implements Serializable {}

  record Order(String item) {}

  private final TestStore store = new TestStore();
  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  private Idempotency cached(int maximumSize) {
    return Idempotency.create(
        IdempotencyConfig.builder()
            .defaultStore(store)
            .timeSource(store)
            .nearCache(maximumSize)
            .build());
  }

  private Idempotency uncached() {
    return Idempotency.create(
        IdempotencyConfig.builder().defaultStore(store).timeSource(store).build());
  }

  private Receipt submit(Idempotency idem, String key) throws Exception {
    return idem.execute(POLICY, key, () -> new Receipt(key, runs.incrementAndGet()));
  }

  private Receipt submit(Idempotency idem, String key, Order order) throws Exception {
    return idem.execute(POLICY, key, order, () -> new Receipt(key, runs.incrementAndGet()));
  }

  /** Runs {@code key} and replays it once, which keeps it in the cache. */
  private Receipt recordAndKeep(Idempotency idem, String key) throws Exception {
    Receipt first = submit(idem, key);
    assertThat(submit(idem, key)).isEqualTo(first);
    return first;
  }

  @Test
  void theFirstReplayAsksTheStoreAndTheNextOnesAreAnsweredFromMemory() throws Exception {
    Idempotency idem = cached(100);
    Receipt first = submit(idem, "k1");
    assertThat(submit(idem, "k1")).isEqualTo(first);
    assertThat(store.claims.get()).isEqualTo(2);

    assertThat(submit(idem, "k1")).isEqualTo(first);
    assertThat(submit(idem, "k1")).isEqualTo(first);

    assertThat(runs.get()).isEqualTo(1);
    assertThat(store.claims.get()).as("replays answered from memory").isEqualTo(2);
  }

  @Test
  void anOwnCompletionIsNotKeptSinceItMayRollBackWithTheCallersTransaction() throws Exception {
    Idempotency idem = cached(100);
    submit(idem, "k1");
    store.delete(
        RecordKey.of(POLICY.scope(), "k1")); // as a rolled-back completion leaves no record

    assertThat(submit(idem, "k1").run()).as("the method runs again").isEqualTo(2);
  }

  @Test
  void aCompletedRecordTheStoreAnswersIsKeptForTheNextReplays() throws Exception {
    Receipt first = submit(uncached(), "k1"); // recorded by another instance
    Idempotency idem = cached(100);

    assertThat(submit(idem, "k1")).isEqualTo(first);
    assertThat(submit(idem, "k1")).isEqualTo(first);
    assertThat(submit(idem, "k1")).isEqualTo(first);

    assertThat(runs.get()).isEqualTo(1);
    assertThat(store.claims.get()).as("one claim to record, one to learn the outcome").isEqualTo(2);
  }

  @Test
  void withoutTheCacheEveryReplayClaimsInTheStore() throws Exception {
    Idempotency idem = cached(0);
    submit(idem, "k1");
    submit(idem, "k1");
    submit(idem, "k1");
    assertThat(store.claims.get()).isEqualTo(3);
    assertThat(idem.config().defaultStore()).isSameAs(store);
  }

  @Test
  void anInProgressRecordIsNeverKept() throws Exception {
    RecordKey key = RecordKey.of(POLICY.scope(), "k1");
    assertThat(store.claim(key, "someone-else", null, Duration.ofMinutes(1)).isAcquired()).isTrue();
    Idempotency idem = cached(100);

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(
              () ->
                  idem.execute(
                      REJECT_IN_PROGRESS, "k1", () -> new Receipt("k1", runs.incrementAndGet())))
          .isInstanceOf(IdempotencyInProgressException.class);
    }
    assertThat(store.claims.get()).as("each attempt asks the store").isEqualTo(4);

    store.release(key, "someone-else");
    submit(idem, "k1");
    assertThat(runs.get()).as("the key freed in the store runs at once").isEqualTo(1);
  }

  @Test
  void anEntryEndsWithTheRecordsTtlOnTheCachesClock() throws Exception {
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .timeSource(store)
                .nearCache(100)
                .nearCacheExpireAfter(Duration.ofHours(1))
                .build());
    Receipt first = recordAndKeep(idem, "k1");

    store.advance(Duration.ofMinutes(9));
    assertThat(submit(idem, "k1")).isEqualTo(first);
    assertThat(store.claims.get()).isEqualTo(2);

    store.advance(Duration.ofMinutes(1).plusNanos(1));
    Receipt second = submit(idem, "k1");
    assertThat(store.claims.get()).as("the expired entry is not used").isEqualTo(3);
    assertThat(second.run())
        .as("the record expired in the store too: the method runs again")
        .isEqualTo(2);
  }

  @Test
  void aCachedReplayReportsTheTimeLeftOnTheCachesClock() {
    NearCacheStore cache = new NearCacheStore(store, 100, Duration.ofHours(1), store);
    RecordKey key = RecordKey.of("s", "k");
    assertThat(cache.claim(key, "owner-1", "fp", Duration.ofMinutes(1)).isAcquired()).isTrue();
    assertThat(cache.complete(key, "owner-1", new byte[] {1, 2}, Duration.ofMinutes(10))).isTrue();
    assertThat(cache.claim(key, "owner-2", "fp", Duration.ofMinutes(1)).existing().isCompleted())
        .isTrue();
    store.advance(Duration.ofMinutes(4));

    ClaimResult replay = cache.claim(key, "owner-3", "fp", Duration.ofMinutes(1));

    assertThat(store.claims.get()).isEqualTo(2);
    IdempotencyRecord r = replay.existing();
    assertThat(r.isCompleted()).isTrue();
    assertThat(r.ownerToken()).isEqualTo("owner-1");
    assertThat(r.fingerprint()).isEqualTo("fp");
    assertThat(r.outcome()).containsExactly(1, 2);
    assertThat(r.expiresIn()).isEqualTo(Duration.ofMinutes(6));
  }

  @Test
  void anEntryEndsAfterExpireAfterEvenWhenTheTtlIsLonger() throws Exception {
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .timeSource(store)
                .nearCache(100)
                .nearCacheExpireAfter(Duration.ofSeconds(30))
                .build());
    Receipt first = recordAndKeep(idem, "k1");
    store.advance(Duration.ofSeconds(29));
    submit(idem, "k1");
    assertThat(store.claims.get()).isEqualTo(2);

    store.advance(Duration.ofSeconds(2));
    assertThat(submit(idem, "k1")).isEqualTo(first);
    assertThat(store.claims.get()).as("asked the store again after 30 s").isEqualTo(3);
    assertThat(runs.get()).isEqualTo(1);
  }

  @Test
  void theNumberOfEntriesStaysWithinTheMaximumSize() throws Exception {
    Idempotency idem = cached(3);
    for (int i = 0; i < 50; i++) {
      recordAndKeep(idem, "k" + i);
    }
    NearCacheStore cache = (NearCacheStore) idem.config().defaultStore();
    assertThat(cache.size()).isBetween(1, 3);
    int before = store.claims.get();
    submit(idem, "k49");
    assertThat(store.claims.get()).as("the most recent key is kept").isEqualTo(before);
  }

  @Test
  void theSweepKeepsEntriesHitSinceItLastPassed() throws Exception {
    Idempotency idem = cached(3);
    recordAndKeep(idem, "hot");
    for (int i = 0; i < 30; i++) {
      submit(idem, "hot"); // a hit marks it used
      recordAndKeep(idem, "cold" + i);
    }
    int before = store.claims.get();
    submit(idem, "hot");
    assertThat(store.claims.get())
        .as("the key replayed between puts survives them")
        .isEqualTo(before);
  }

  @Test
  void deleteDropsTheEntrySoTheNextCallRunsTheMethod() throws Exception {
    Idempotency idem = cached(100);
    recordAndKeep(idem, "k1");
    submit(idem, "k1");
    assertThat(runs.get()).isEqualTo(1);

    assertThat(idem.delete("", POLICY.scope(), "k1")).isTrue();

    assertThat(submit(idem, "k1").run()).isEqualTo(2);
  }

  @Test
  void aPayloadMismatchIsRejectedFromTheCacheAsFromTheStore() throws Exception {
    Idempotency idem = cached(100);
    submit(idem, "mine", new Order("book"));
    submit(idem, "mine", new Order("book"));
    submit(uncached(), "theirs", new Order("book"));
    submit(idem, "theirs", new Order("book")); // kept from the store's answer
    int claims = store.claims.get();

    assertThatThrownBy(() -> submit(idem, "mine", new Order("car")))
        .isInstanceOf(IdempotencyKeyMismatchException.class);
    assertThatThrownBy(() -> submit(idem, "theirs", new Order("car")))
        .isInstanceOf(IdempotencyKeyMismatchException.class);
    assertThat(submit(idem, "mine", new Order("book")).run()).isEqualTo(1);
    assertThat(store.claims.get()).as("all answered from memory").isEqualTo(claims);
    assertThat(runs.get()).isEqualTo(2);
  }

  @Test
  void aStoreFailureOnAFreshKeyStillSurfaces() throws Exception {
    Idempotency idem = cached(100);
    Receipt kept = recordAndKeep(idem, "k1");
    store.failClaim = new IllegalStateException("down");

    assertThatThrownBy(() -> submit(idem, "k2")).isInstanceOf(IdempotencyStoreException.class);
    assertThat(submit(idem, "k1"))
        .as("a kept outcome is replayed during the outage")
        .isEqualTo(kept);
    assertThat(runs.get()).isEqualTo(1);
  }

  @Test
  void readAsksTheStoreAndDropsAnEntryTheStoreNoLongerHas() throws Exception {
    Idempotency idem = cached(100);
    recordAndKeep(idem, "k1");
    RecordKey key = RecordKey.of(POLICY.scope(), "k1");
    store.delete(key); // lost behind the cache's back, as in a failover

    assertThat(idem.inspect("", POLICY.scope(), "k1")).isEmpty();
    assertThat(submit(idem, "k1").run()).as("the entry was dropped by the read").isEqualTo(2);
  }

  @Test
  void aDeleteAnnouncedByTheStoreDropsTheEntry() throws Exception {
    AnnouncingStore announcing = new AnnouncingStore(store);
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(announcing)
                .timeSource(store)
                .nearCache(100)
                .build());
    recordAndKeep(idem, "k1");
    recordAndKeep(idem, "k2");
    RecordKey key = RecordKey.of(POLICY.scope(), "k1");

    store.delete(key); // through another instance
    announcing.announceDelete(key);

    assertThat(submit(idem, "k1").run()).isEqualTo(3);
    assertThat(submit(idem, "k2").run()).as("other keys stay").isEqualTo(2);
  }

  @Test
  void possiblyMissedAnnouncementsDropEveryEntry() throws Exception {
    AnnouncingStore announcing = new AnnouncingStore(store);
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(announcing)
                .timeSource(store)
                .nearCache(100)
                .build());
    recordAndKeep(idem, "k1");
    recordAndKeep(idem, "k2");
    int claims = store.claims.get();

    announcing.announceMissed();

    submit(idem, "k1");
    submit(idem, "k2");
    assertThat(store.claims.get()).isEqualTo(claims + 2);
    assertThat(runs.get()).isEqualTo(2);
  }

  @Test
  void aReplyInFlightDuringADeleteIsNotKept() throws Exception {
    AnnouncingStore announcing = new AnnouncingStore(store);
    NearCacheStore cache = new NearCacheStore(announcing, 100, Duration.ofMinutes(1), store);
    RecordKey key = RecordKey.of("s", "k");
    store.claim(key, "owner-1", null, Duration.ofMinutes(1));
    store.complete(key, "owner-1", new byte[] {1}, Duration.ofMinutes(10));
    CountDownLatch answered = new CountDownLatch(1);
    CountDownLatch deleted = new CountDownLatch(1);
    announcing.beforeClaimReturns =
        () -> {
          answered.countDown();
          await(deleted);
        };
    Future<ClaimResult> inFlight =
        pool.submit(() -> cache.claim(key, "owner-2", null, Duration.ofMinutes(1)));
    await(answered);
    store.delete(key);
    announcing.announceDelete(key);
    deleted.countDown();
    assertThat(inFlight.get().existing().isCompleted())
        .as("the reply read before the delete")
        .isTrue();
    announcing.beforeClaimReturns = null;

    assertThat(cache.claim(key, "owner-3", null, Duration.ofMinutes(1)).isAcquired())
        .as("the stale reply was not kept")
        .isTrue();
  }

  @Test
  void closingTheCacheEndsItsSubscription() {
    AnnouncingStore announcing = new AnnouncingStore(store);
    NearCacheStore cache = new NearCacheStore(announcing, 100, Duration.ofMinutes(1), store);
    assertThat(announcing.listeners).hasSize(1);
    cache.closeCache();
    assertThat(announcing.listeners).isEmpty();
  }

  @Test
  void oneStoreUnderSeveralNamesGetsOneCacheAndARebuiltConfigKeepsIt() {
    IdempotencyConfig config =
        IdempotencyConfig.builder()
            .defaultStore(store)
            .store("orders", store)
            .timeSource(store)
            .nearCache(10)
            .build();
    assertThat(config.defaultStore()).isInstanceOf(NearCacheStore.class);
    assertThat(config.store("orders")).isSameAs(config.defaultStore());

    IdempotencyConfig same = IdempotencyConfig.from(config).build();
    assertThat(same.defaultStore()).isSameAs(config.defaultStore());

    IdempotencyConfig off = IdempotencyConfig.from(config).nearCache(0).build();
    assertThat(off.defaultStore()).isSameAs(store);
    assertThat(off.nearCacheMaximumSize()).isZero();
  }

  @Test
  void aNegativeMaximumSizeIsRejected() {
    assertThatThrownBy(() -> IdempotencyConfig.builder().nearCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 (off) or positive");
    assertThatThrownBy(() -> IdempotencyConfig.builder().nearCacheExpireAfter(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nearCacheExpireAfter");
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A store that announces deletes when the test says so, in front of the fake-clock store. */
  static final class AnnouncingStore implements IdempotencyStore, DeleteAnnouncingStore {
    private final TestStore store;
    final List<DeleteListener> listeners = new CopyOnWriteArrayList<>();
    volatile Runnable beforeClaimReturns;

    AnnouncingStore(TestStore store) {
      this.store = store;
    }

    void announceDelete(RecordKey key) {
      listeners.forEach(l -> l.deleted(key));
    }

    void announceMissed() {
      listeners.forEach(DeleteListener::deletesMayHaveBeenMissed);
    }

    @Override
    public Subscription subscribeToDeletes(DeleteListener listener) {
      listeners.add(listener);
      return () -> listeners.remove(listener);
    }

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      ClaimResult result = store.claim(key, ownerToken, fingerprint, lease);
      Runnable hook = beforeClaimReturns;
      if (hook != null) {
        hook.run();
      }
      return result;
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return store.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      return store.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      return store.renew(key, ownerToken, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      return store.delete(key);
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return store.read(key);
    }
  }
}
