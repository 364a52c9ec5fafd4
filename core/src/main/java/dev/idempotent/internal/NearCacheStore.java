package dev.idempotent.internal;

import dev.idempotent.TimeSource;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.DeleteAnnouncingStore;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A near cache of completed outcomes in front of a shared store: a {@code COMPLETED} record never
 * changes until its ttl ends (or an operator deletes it), so a repeat is answered from this
 * process's memory without a round trip.
 *
 * <ul>
 *   <li>{@link #claim}: a cached, unexpired completed record of the key is answered as {@link
 *       ClaimResult#existing} (its {@code expiresIn} recomputed on this cache's clock) without
 *       calling the store. Otherwise the store is called, and a completed record it answers is kept
 *       as it is (owner token, fingerprint, outcome), so the executor's payload check and replay
 *       are those of the store's record.
 *   <li>{@link #complete} is not kept: a completion may still roll back with the caller's
 *       transaction.
 *   <li>{@link #read} always asks the store (an operator sees the store's truth) and keeps, or
 *       drops, what it says.
 *   <li>An {@code IN_PROGRESS} record is never kept.
 *   <li>An entry is dropped when the record's ttl ends, as the store reported it, measured from
 *       before the request was sent (so never later than the store's own expiry), or {@code maxAge}
 *       after it was kept, whichever comes first.
 *   <li>{@link #delete} drops the entry here; a store that is a {@link DeleteAnnouncingStore} makes
 *       deletes in other instances drop it too, and a subscription that may have missed
 *       announcements drops everything.
 * </ul>
 *
 * <p>Bounded by {@code maximumSize} entries: when a put exceeds it, a clock hand sweeps the
 * entries, giving each one hit since the last sweep a second chance and dropping the first that had
 * none (an approximation of least recently used that costs a hit one volatile read). Concurrent
 * puts may exceed the bound by the number of threads putting at that moment. Each entry holds the
 * record (key, owner token, fingerprint and the outcome bytes, shared with the store's reply, not
 * copied).
 *
 * <p>A put made from a store reply is skipped when any invalidation happened while the request was
 * in flight: a reply read before a delete can never be kept after the delete was heard of.
 */
public final class NearCacheStore implements IdempotencyStore, AsyncIdempotencyStore {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  private final IdempotencyStore delegate;
  private final int maximumSize;
  private final Duration maxAge;
  private final long maxAgeNanos;
  private final TimeSource clock;
  private final ConcurrentHashMap<RecordKey, Entry> entries;

  /** Counts invalidations; a put whose request began before one is dropped. */
  private final AtomicLong invalidations = new AtomicLong();

  private final ReentrantLock sweeping = new ReentrantLock();
  private Iterator<Map.Entry<RecordKey, Entry>> hand; // guarded by sweeping
  private final DeleteAnnouncingStore.Subscription subscription;

  /** The delegate when it is a store created on first use, else {@code null}. */
  private final LazilyCreatedStore lazy;

  /** One kept record; {@code dropAt} is the earlier of its ttl end and its maximum age. */
  private static final class Entry {
    final IdempotencyRecord record;
    final long ttlEndsAt;
    final long dropAt;
    volatile boolean used;

    Entry(IdempotencyRecord record, long ttlEndsAt, long dropAt) {
      this.record = record;
      this.ttlEndsAt = ttlEndsAt;
      this.dropAt = dropAt;
    }
  }

  /**
   * @param delegate the shared store
   * @param maximumSize the most entries kept; positive
   * @param maxAge the longest an entry is kept, whatever the record's ttl; positive
   * @param clock the cache's monotonic clock
   */
  public NearCacheStore(
      IdempotencyStore delegate, int maximumSize, Duration maxAge, TimeSource clock) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    if (maximumSize <= 0) {
      throw new IllegalArgumentException(
          "near cache maximumSize must be positive, was " + maximumSize);
    }
    this.maximumSize = maximumSize;
    this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
    this.maxAgeNanos = saturatedNanos(maxAge);
    if (maxAgeNanos <= 0) {
      throw new IllegalArgumentException("near cache maxAge must be positive, was " + maxAge);
    }
    this.clock = Objects.requireNonNull(clock, "clock");
    this.entries = new ConcurrentHashMap<>(Math.min(maximumSize, 1 << 16));
    this.lazy = delegate instanceof LazilyCreatedStore d ? d : null;
    this.subscription = subscribe(delegate);
  }

  private DeleteAnnouncingStore.Subscription subscribe(IdempotencyStore store) {
    if (!(store instanceof DeleteAnnouncingStore announcing)) {
      LOG.info(
          "near cache of {}: the store does not announce deletes to other instances, so a record"
              + " deleted elsewhere may be replayed here for up to {}"
              + " (idempotent.near-cache.expire-after)",
          store,
          maxAge);
      return null;
    }
    try {
      return announcing.subscribeToDeletes(
          new DeleteAnnouncingStore.DeleteListener() {
            @Override
            public void deleted(RecordKey key) {
              invalidate(key);
            }

            @Override
            public void deletesMayHaveBeenMissed() {
              clear();
            }
          });
    } catch (RuntimeException e) {
      LOG.warn(
          "near cache of {}: subscribing to deletes in other instances failed, so a record deleted"
              + " elsewhere may be replayed here for up to {}: {}",
          store,
          maxAge,
          Protocol.describe(e));
      return null;
    }
  }

  /**
   * {@code store} as a configuration with these near-cache settings uses it: itself when {@code
   * maximumSize} is 0 (the store behind it, if it is a near cache), or an in-process store (which
   * answers from memory already; logged at INFO); an existing near cache with the same settings;
   * else a new near cache over the store.
   */
  public static IdempotencyStore decorate(
      IdempotencyStore store, int maximumSize, Duration maxAge, TimeSource clock) {
    IdempotencyStore shared = store instanceof NearCacheStore n ? n.delegate : store;
    if (maximumSize == 0) {
      return shared;
    }
    if (store instanceof NearCacheStore n && n.hasSettings(shared, maximumSize, maxAge, clock)) {
      return n;
    }
    if (inProcess(shared)) {
      LOG.info(
          "near cache not used for {}: the store keeps its records in this process already",
          shared);
      return shared;
    }
    return new NearCacheStore(shared, maximumSize, maxAge, clock);
  }

  /** The in-process memory store, built by code or from {@code idempotent.store=memory}. */
  private static boolean inProcess(IdempotencyStore store) {
    if (store instanceof LazilyCreatedStore lazy) {
      return "memory".equals(lazy.name());
    }
    return store.getClass().getName().equals("dev.idempotent.memory.CaffeineIdempotencyStore");
  }

  /** {@code store} without its near cache, if it has one. */
  public static IdempotencyStore unwrap(IdempotencyStore store) {
    return store instanceof NearCacheStore n ? n.delegate : store;
  }

  /** The store behind this cache. */
  public IdempotencyStore delegate() {
    return delegate;
  }

  public int maximumSize() {
    return maximumSize;
  }

  public Duration maxAge() {
    return maxAge;
  }

  /** Whether this cache was made with these settings (over {@code store}). */
  public boolean hasSettings(IdempotencyStore store, int size, Duration age, TimeSource time) {
    return delegate == store && maximumSize == size && maxAge.equals(age) && clock == time;
  }

  /** The number of entries now (for tests and diagnostics). */
  public int size() {
    return entries.size();
  }

  /**
   * The key of the entry of a record: {@code key} itself, as the executor fitted it to the store;
   * behind a store created on first use (which takes any length and fits keys itself), {@code key}
   * fitted as that store fits it, so that the keys of its delete announcements match; {@code null}
   * while that store does not exist.
   */
  private RecordKey entryKey(RecordKey key) {
    if (lazy == null) {
      return key;
    }
    int length = lazy.createdMaxKeyLength();
    return length < 0 ? null : key.fittedTo(length);
  }

  @Override
  public ClaimResult claim(
      RecordKey recordKey, String ownerToken, String fingerprint, Duration lease) {
    ClaimResult cached = cached(entryKey(recordKey));
    if (cached != null) {
      return cached;
    }
    long seen = invalidations.get();
    long sent = clock.nanoTime();
    ClaimResult result = delegate.claim(recordKey, ownerToken, fingerprint, lease);
    if (!result.isAcquired() && result.existing().isCompleted()) {
      keep(entryKey(recordKey), result.existing(), sent, seen);
    }
    return result;
  }

  /** The answer of a cached, unexpired record of {@code key}, or {@code null}. */
  private ClaimResult cached(RecordKey key) {
    Entry e = key == null ? null : entries.get(key);
    if (e == null) {
      return null;
    }
    long now = clock.nanoTime();
    if (now - e.dropAt < 0) {
      if (!e.used) {
        e.used = true;
      }
      IdempotencyRecord r = e.record;
      return ClaimResult.existing(
          IdempotencyRecord.completed(
              r.key(),
              r.ownerToken(),
              r.fingerprint(),
              r.outcome(),
              Duration.ofNanos(e.ttlEndsAt - now)));
    }
    entries.remove(key, e);
    return null;
  }

  /** {@link #claim}, without blocking: a cached record at once, else the store's answer. */
  @Override
  public CompletionStage<ClaimResult> claimAsync(
      RecordKey recordKey, String ownerToken, String fingerprint, Duration lease) {
    ClaimResult cached = cached(entryKey(recordKey));
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    long seen = invalidations.get();
    long sent = clock.nanoTime();
    return AsyncStores.of(delegate)
        .claimAsync(recordKey, ownerToken, fingerprint, lease)
        .thenApply(
            result -> {
              if (!result.isAcquired() && result.existing().isCompleted()) {
                keep(entryKey(recordKey), result.existing(), sent, seen);
              }
              return result;
            });
  }

  @Override
  public CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return AsyncStores.of(delegate).completeAsync(key, ownerToken, outcome, ttl);
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
    return AsyncStores.of(delegate).releaseAsync(key, ownerToken);
  }

  @Override
  public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
    return AsyncStores.of(delegate).renewAsync(key, ownerToken, lease);
  }

  @Override
  public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
    long seen = invalidations.get();
    long sent = clock.nanoTime();
    return AsyncStores.of(delegate)
        .readAsync(key)
        .thenApply(
            found -> {
              RecordKey entry = entryKey(key);
              if (found.isPresent() && found.get().isCompleted()) {
                keep(entry, found.get(), sent, seen);
              } else if (entry != null) {
                entries.remove(entry);
              }
              return found;
            });
  }

  @Override
  public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
    return AsyncStores.of(delegate).awaitChangeAsync(key, maxWait);
  }

  /**
   * Delegates; the outcome is not kept here. A completion may belong to the caller's database
   * transaction (the JDBC store with a connection provider) and roll back after it returned, so
   * only what the store answers a claim or a read is kept: the first repeat in this instance asks
   * the store once.
   */
  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return delegate.complete(key, ownerToken, outcome, ttl);
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    return delegate.release(key, ownerToken);
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    return delegate.renew(key, ownerToken, lease);
  }

  @Override
  public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    return delegate.renewAll(claims, lease);
  }

  @Override
  public CompletionStage<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
    return AsyncStores.of(delegate).renewAllAsync(claims, lease);
  }

  /**
   * Drops the entry here, deletes the record in the store, and drops the entry again: a reply read
   * before the store's delete, and kept while it ran, does not survive it.
   */
  @Override
  public boolean delete(RecordKey key) {
    invalidate(entryKey(key));
    try {
      return delegate.delete(key);
    } finally {
      invalidate(entryKey(key));
    }
  }

  /**
   * Asks the store; keeps a completed record it answers, and drops the entry when it answers
   * anything else.
   */
  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    long seen = invalidations.get();
    long sent = clock.nanoTime();
    Optional<IdempotencyRecord> found = delegate.read(key);
    RecordKey entry = entryKey(key);
    if (found.isPresent() && found.get().isCompleted()) {
      keep(entry, found.get(), sent, seen);
    } else if (entry != null) {
      entries.remove(entry);
    }
    return found;
  }

  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    delegate.awaitChange(key, maxWait);
  }

  @Override
  public int maxKeyLength() {
    return delegate.maxKeyLength();
  }

  /** Ends the subscription to deletes and forgets every entry; the store stays open. */
  public void closeCache() {
    DeleteAnnouncingStore.Subscription s = subscription;
    if (s != null) {
      try {
        s.close();
      } catch (RuntimeException e) {
        LOG.debug("ending the near cache's subscription to deletes failed", e);
      }
    }
    clear();
  }

  /** Ends the cache ({@link #closeCache()}) and closes the store behind it. */
  @Override
  public void close() {
    closeCache();
    delegate.close();
  }

  /** Drops the entry of {@code key} (a delete here or in another instance). */
  void invalidate(RecordKey key) {
    invalidations.incrementAndGet();
    if (key != null) {
      entries.remove(key);
    }
  }

  /** Drops every entry (announcements of deletes may have been lost). */
  void clear() {
    invalidations.incrementAndGet();
    entries.clear();
  }

  private void keep(RecordKey key, IdempotencyRecord record, long sent, long seen) {
    if (key == null) {
      return;
    }
    long ttlEndsAt = sent + saturatedNanos(record.expiresIn());
    long dropAt = Math.min(ttlEndsAt, sent + maxAgeNanos);
    if (dropAt - clock.nanoTime() <= 0) {
      return;
    }
    Entry e = new Entry(record, ttlEndsAt, dropAt);
    entries.put(key, e);
    if (invalidations.get() != seen) {
      entries.remove(
          key, e); // an invalidation ran while the reply was on its way: it may predate it
      return;
    }
    if (entries.size() > maximumSize) {
      sweep();
    }
  }

  /**
   * Drops entries until the bound holds: expired ones, then those not hit since the hand last
   * passed them.
   */
  private void sweep() {
    sweeping.lock();
    try {
      long now = clock.nanoTime();
      int passed = 0;
      int patience = 2 * maximumSize + 16;
      while (entries.size() > maximumSize) {
        if (hand == null || !hand.hasNext()) {
          hand = entries.entrySet().iterator();
          if (!hand.hasNext()) {
            return;
          }
        }
        Map.Entry<RecordKey, Entry> candidate = hand.next();
        Entry e = candidate.getValue();
        if (e.used && now - e.dropAt < 0 && passed++ < patience) {
          e.used = false;
          continue;
        }
        entries.remove(candidate.getKey(), e);
      }
    } finally {
      sweeping.unlock();
    }
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE / 4 : Long.MAX_VALUE / 4;
    }
  }

  @Override
  public String toString() {
    return "NearCacheStore[maximumSize="
        + maximumSize
        + ", maxAge="
        + maxAge
        + ", "
        + delegate
        + "]";
  }
}
