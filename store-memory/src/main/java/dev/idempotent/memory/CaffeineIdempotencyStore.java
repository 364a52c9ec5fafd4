package dev.idempotent.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.idempotent.TimeSource;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process idempotency store on a Caffeine cache: for a single JVM, for tests and for
 * development. Records live in the heap of this JVM only, so another instance of the application
 * does not see them and a restart forgets them; use a shared store (Redis, JDBC) when several
 * instances serve the same keys.
 *
 * <pre>{@code
 * IdempotencyStore store = CaffeineIdempotencyStore.builder().maximumSize(50_000).build();
 * }</pre>
 *
 * <p>Each operation is atomic per key ({@code asMap().compute}). A claim expires after its lease
 * and a completed record after its ttl, measured by the injected {@link TimeSource} (by default
 * {@link System#nanoTime()}), which also drives the cache's ticker, so tests can advance a fake
 * clock instead of sleeping. At most {@link Builder#maximumSize(long) maximumSize} completed
 * records are kept: each completion beyond it evicts the record completed longest ago, which then
 * behaves as missing, so a retry soon after its first call is replayed however full the store is.
 * The eviction runs on the cache's executor right after the completion (the oldest record is cold
 * in memory, and touching it was a quarter of a completion's cost); while it is behind, at most
 * {@code min(1024, maximumSize / 64)} more records are kept, and a completion past those evicts the
 * oldest itself. Claims in progress do not count and are never evicted (they expire with their
 * lease). Outcomes are copied on {@link #complete} and {@link #read}; a replay answer of {@link
 * #claim} holds the stored array itself (see {@link IdempotencyRecord#outcome()}: do not modify),
 * and replays of one record within a millisecond share one answer. {@link #awaitChange} wakes up as
 * soon as the holder completes or releases the key, or it is {@link #delete deleted}.
 */
public final class CaffeineIdempotencyStore implements IdempotencyStore {
  private static final Logger log = LoggerFactory.getLogger(CaffeineIdempotencyStore.class);

  /** Default of {@link Builder#maximumSize(long)}. */
  public static final long DEFAULT_MAXIMUM_SIZE = 100_000;

  /**
   * Longest lease, ttl or wait honoured (about 73 years), so that clock arithmetic never overflows.
   */
  private static final long MAX_NANOS = Long.MAX_VALUE >> 2;

  /**
   * How long one replay answer is reused for further replays of the same record (its expiresIn ages
   * as much).
   */
  static final long REPLAY_REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * How long a claim whose lease ended is kept, invisible, so that the next claim can report a
   * takeover rather than a fresh acquisition. After that it is dropped and a claim simply acquires
   * the key.
   */
  static final long TAKEOVER_WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** The most completed records kept beyond the maximum size while their eviction waits. */
  static final long MAX_EVICTION_SLACK = 1024;

  private final Cache<RecordKey, Entry> cache;

  /**
   * For lock-free lookups that neither read the cache's ticker nor record the access (this class
   * checks expiry).
   */
  private final Policy<RecordKey, Entry> policy;

  private final TimeSource timeSource;
  private final long maximumSize;

  /**
   * The live completed records in the order they completed, oldest first: the size bound. A list
   * linked through the entries themselves, so that a completion and a removal take a few pointer
   * writes and no hash lookup or allocation. Guarded by itself; taken inside the cache's per-key
   * lock (never the other way round) and only for completions and removals, not for claims or
   * replays.
   */
  private final CompletionOrder completionOrder = new CompletionOrder();

  /** Runs the evictions of the size bound after the completion that made them due. */
  private final Executor evictionExecutor;

  /** Whether an eviction run is queued or running on {@link #evictionExecutor}. */
  private final AtomicBoolean evictionScheduled = new AtomicBoolean();

  /**
   * How many completed records beyond the maximum size may wait for the eviction run; past that, a
   * completion evicts the oldest itself, so the bound holds however far behind the executor is.
   */
  private final long evictionSlack;

  /**
   * Waiters of {@link #awaitChange}, per key; an entry exists only while someone waits on that key.
   */
  private final ConcurrentHashMap<RecordKey, ChangeSignal> signals = new ConcurrentHashMap<>();

  private CaffeineIdempotencyStore(Builder builder) {
    this.timeSource = builder.timeSource;
    this.maximumSize = builder.maximumSize;
    // The cache only expires entries; the size bound is kept in completion order by this class
    // (Caffeine's own
    // bound admits by frequency, so a full cache would reject the newest records, whose retries are
    // the likeliest).
    Caffeine<RecordKey, Entry> caffeine =
        Caffeine.newBuilder()
            .ticker(builder.timeSource::nanoTime)
            .expireAfter(new EntryExpiry())
            .evictionListener(
                (RecordKey key, Entry entry, RemovalCause cause) -> {
                  if (key != null && entry != null && entry.isCompleted()) {
                    forgetCompletion(entry);
                  }
                });
    if (builder.executor != null) {
      caffeine.executor(builder.executor);
    }
    this.evictionExecutor = builder.executor != null ? builder.executor : ForkJoinPool.commonPool();
    this.evictionSlack = Math.min(MAX_EVICTION_SLACK, Math.max(1, maximumSize / 64));
    this.cache = caffeine.build();
    this.policy = cache.policy();
  }

  /**
   * A builder with the defaults: at most {@value #DEFAULT_MAXIMUM_SIZE} completed records, system
   * clock.
   */
  public static Builder builder() {
    return new Builder(DEFAULT_MAXIMUM_SIZE, TimeSource.system(), null);
  }

  // ----------------------------------------------------------------------------------------------
  // protocol

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    long leaseNanos = positiveNanos(lease, "lease");
    // Lock-free fast path: a live record answers the claim without writing (a replay, or a claim
    // held by a
    // running call). Only a free or expired key takes the per-key lock below.
    Entry current = policy.getIfPresentQuietly(key);
    if (current != null) {
      long now = timeSource.nanoTime();
      if (current.isLiveAt(now)) {
        return current.isCompleted()
            ? current.replay(key, now)
            : ClaimResult.existing(current.toRecord(key, now, false));
      }
    } else {
      // A fresh key, the common case: one insertion, as cheap as the cache gets. Only when another
      // caller got there
      // first (or the cache still holds an expired record) does the claim take the full step below.
      Entry created =
          new Entry(key, ownerToken, fingerprint, null, timeSource.nanoTime() + leaseNanos);
      if (cache.asMap().putIfAbsent(key, created) == null) {
        return ClaimResult.acquired();
      }
    }
    ClaimAttempt attempt = new ClaimAttempt(ownerToken, fingerprint, leaseNanos);
    Entry result = cache.asMap().compute(key, attempt);
    if (result == attempt.created) {
      if (attempt.tookOver) {
        log.debug("Claim on {} took over a claim whose lease had ended", key);
        return ClaimResult.tookOver();
      }
      return ClaimResult.acquired();
    }
    return ClaimResult.existing(result.toRecord(key, timeSource.nanoTime(), false));
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Objects.requireNonNull(outcome, "outcome");
    long ttlNanos = positiveNanos(ttl, "ttl");
    OwnedUpdate completion = new OwnedUpdate(ownerToken, outcome.clone(), ttlNanos);
    Entry result = cache.asMap().computeIfPresent(key, completion);
    if (result != null && result == completion.created) {
      Entry evicted = completion.evicted;
      if (evicted != null) {
        cache.asMap().remove(evicted.key, evicted);
      } else if (completion.evictionDue) {
        scheduleEviction();
      }
      signalChange(key);
      return true;
    }
    return false;
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Release release = new Release(ownerToken);
    cache.asMap().computeIfPresent(key, release);
    if (release.released) {
      signalChange(key);
      return true;
    }
    return false;
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    long leaseNanos = positiveNanos(lease, "lease");
    OwnedUpdate renewal = new OwnedUpdate(ownerToken, null, leaseNanos);
    Entry result = cache.asMap().computeIfPresent(key, renewal);
    return result != null && result == renewal.created;
  }

  /**
   * Deletes the live record of {@code key}, in progress or completed, whoever holds it; a completed
   * one also leaves the completion order. Wakes the key's waiters, as a release does.
   */
  @Override
  public boolean delete(RecordKey key) {
    Objects.requireNonNull(key, "key");
    Deletion deletion = new Deletion();
    cache.asMap().computeIfPresent(key, deletion);
    if (deletion.deleted) {
      signalChange(key);
      return true;
    }
    return false;
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    Objects.requireNonNull(key, "key");
    Entry current = policy.getIfPresentQuietly(key);
    if (current == null) {
      return Optional.empty();
    }
    long now = timeSource.nanoTime();
    return current.isLiveAt(now) ? Optional.of(current.toRecord(key, now, true)) : Optional.empty();
  }

  /**
   * Returns as soon as the holder of {@code key} completes or releases it, when its lease ends, or
   * after {@code maxWait}, whichever comes first; returns at once when the key is not held. The
   * wait is measured in real time; the lease end by the store's {@link TimeSource}.
   */
  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    Objects.requireNonNull(key, "key");
    long waitNanos = maxWait == null || maxWait.isNegative() ? 0 : saturatedNanos(maxWait);
    if (waitNanos == 0) {
      return;
    }
    ChangeSignal signal =
        signals.compute(
            key,
            (k, s) -> {
              ChangeSignal registered = s == null ? new ChangeSignal() : s;
              registered.waiters++;
              return registered;
            });
    try {
      // Pairs with the fence in signalChange: either this read sees the change, or the change sees
      // the signal.
      VarHandle.fullFence();
      Entry current = policy.getIfPresentQuietly(key);
      long now = timeSource.nanoTime();
      if (current == null || current.isCompleted() || !current.isLiveAt(now)) {
        return;
      }
      signal.fired.await(Math.min(waitNanos, current.deadline - now), TimeUnit.NANOSECONDS);
    } finally {
      signals.computeIfPresent(key, (k, s) -> s == signal && --s.waiters == 0 ? null : s);
    }
  }

  /** Drops every record and wakes every waiter. */
  @Override
  public void close() {
    cache.invalidateAll();
    synchronized (completionOrder) {
      completionOrder.clear();
    }
    signals.forEach(
        (key, signal) -> {
          if (signals.remove(key, signal)) {
            signal.fired.countDown();
          }
        });
  }

  @Override
  public String toString() {
    return "CaffeineIdempotencyStore{maximumSize=" + maximumSize + "}";
  }

  /**
   * The number of records held, expired ones included until the cache cleans them up (approximate).
   */
  long estimatedSize() {
    return cache.estimatedSize();
  }

  /** The number of live completed records, the count bounded by the maximum size. */
  int completedCount() {
    synchronized (completionOrder) {
      return completionOrder.size;
    }
  }

  /** The number of keys someone waits on in {@link #awaitChange}. */
  int waitedKeyCount() {
    return signals.size();
  }

  /** Runs the pending evictions and the cache's maintenance (expiry) now. */
  void cleanUp() {
    evictOverflow();
    cache.cleanUp();
  }

  private boolean evictionDue() {
    synchronized (completionOrder) {
      return completionOrder.size > maximumSize;
    }
  }

  /**
   * Queues one run of {@link #evictOverflow} unless one is queued: the oldest records' entries are
   * cold in memory, and removing them cost a quarter of a completion on the caller's thread.
   */
  private void scheduleEviction() {
    if (evictionScheduled.compareAndSet(false, true)) {
      try {
        evictionExecutor.execute(this::runEviction);
      } catch (RuntimeException e) {
        evictionScheduled.set(false);
        log.debug("Eviction could not be queued; evicting on the completing thread", e);
        evictOverflow();
      }
    }
  }

  private void runEviction() {
    do {
      try {
        evictOverflow();
      } finally {
        evictionScheduled.set(false);
      }
    } while (evictionDue() && evictionScheduled.compareAndSet(false, true));
  }

  /** Evicts the oldest completed records until at most the maximum size are left. */
  private void evictOverflow() {
    while (true) {
      Entry oldest;
      synchronized (completionOrder) {
        if (completionOrder.size <= maximumSize) {
          return;
        }
        oldest = completionOrder.removeOldest();
      }
      cache.asMap().remove(oldest.key, oldest);
    }
  }

  /**
   * Takes a completed record that left the cache (expired, or replaced once expired) out of the
   * order.
   */
  private void forgetCompletion(Entry entry) {
    synchronized (completionOrder) {
      completionOrder.remove(entry);
    }
  }

  private void signalChange(RecordKey key) {
    VarHandle.fullFence();
    if (!signals.isEmpty()) {
      ChangeSignal signal = signals.remove(key);
      if (signal != null) {
        signal.fired.countDown();
      }
    }
  }

  private static long positiveNanos(Duration d, String name) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
    }
    return saturatedNanos(d);
  }

  private static long saturatedNanos(Duration d) {
    if (d.getSeconds() >= MAX_NANOS / 1_000_000_000L) {
      return MAX_NANOS;
    }
    return Math.min(d.toNanos(), MAX_NANOS);
  }

  // ----------------------------------------------------------------------------------------------
  // records

  /**
   * One stored record; immutable but for its links in the completion order, replaced on every
   * change. {@code outcome == null} while in progress.
   */
  private static final class Entry {
    final RecordKey key;
    final String owner;
    final String fingerprint;
    final byte[] outcome;

    /** Lease end while in progress, ttl end once completed, on the store's clock. */
    final long deadline;

    /**
     * The last answer of {@link #replay}, built at {@code deadline - expiresIn}; written without
     * synchronization (immutable, safely published through final fields).
     */
    private ClaimResult replay;

    /**
     * Neighbours in the completion order, guarded by it; both null while not in it (the head has
     * older null).
     */
    Entry older;

    Entry newer;

    /** Whether the entry is in the completion order; guarded by it. */
    boolean ordered;

    Entry(RecordKey key, String owner, String fingerprint, byte[] outcome, long deadline) {
      this.key = key;
      this.owner = owner;
      this.fingerprint = fingerprint;
      this.outcome = outcome;
      this.deadline = deadline;
    }

    boolean isCompleted() {
      return outcome != null;
    }

    boolean isLiveAt(long now) {
      return deadline - now > 0;
    }

    boolean isHeldBy(String ownerToken, long now) {
      return outcome == null && isLiveAt(now) && owner.equals(ownerToken);
    }

    /**
     * How long the cache keeps the entry: a claim a little past its lease end, so that a takeover
     * is seen.
     */
    long retainUntil() {
      return outcome != null ? deadline : deadline + TAKEOVER_WINDOW_NANOS;
    }

    /**
     * The answer to a claim on this completed record. Replays of a hot key within {@link
     * #REPLAY_REUSE_NANOS} share one answer (immutable), so the replay path allocates nothing; its
     * expiresIn is then up to that much older. Racy by design: a lost update only costs an
     * allocation.
     */
    ClaimResult replay(RecordKey key, long now) {
      ClaimResult cached = replay;
      if (cached != null) {
        long builtAt = deadline - cached.existing().expiresIn().toNanos();
        if (now - builtAt < REPLAY_REUSE_NANOS && now - builtAt >= 0) {
          return cached;
        }
      }
      ClaimResult fresh = ClaimResult.existing(toRecord(key, now, false));
      replay = fresh;
      return fresh;
    }

    IdempotencyRecord toRecord(RecordKey key, long now, boolean copyOutcome) {
      Duration left = Duration.ofNanos(Math.max(deadline - now, 0));
      if (outcome == null) {
        return IdempotencyRecord.inProgress(key, owner, fingerprint, left);
      }
      // Replays get the stored array (IdempotencyRecord#outcome says not to modify it); reads get a
      // copy.
      return IdempotencyRecord.completed(
          key, owner, fingerprint, copyOutcome ? outcome.clone() : outcome, left);
    }
  }

  private static final class EntryExpiry implements Expiry<RecordKey, Entry> {
    @Override
    public long expireAfterCreate(RecordKey key, Entry value, long currentTime) {
      return Math.max(value.retainUntil() - currentTime, 0);
    }

    @Override
    public long expireAfterUpdate(
        RecordKey key, Entry value, long currentTime, long currentDuration) {
      return Math.max(value.retainUntil() - currentTime, 0);
    }

    @Override
    public long expireAfterRead(
        RecordKey key, Entry value, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  /** The atomic step of {@link #claim}; one allocation per claim that reaches the cache's lock. */
  private final class ClaimAttempt implements BiFunction<RecordKey, Entry, Entry> {
    private final String owner;
    private final String fingerprint;
    private final long leaseNanos;
    Entry created;
    boolean tookOver;

    ClaimAttempt(String owner, String fingerprint, long leaseNanos) {
      this.owner = owner;
      this.fingerprint = fingerprint;
      this.leaseNanos = leaseNanos;
    }

    @Override
    public Entry apply(RecordKey key, Entry old) {
      long now = timeSource.nanoTime();
      if (old != null && old.isLiveAt(now)) {
        created = null;
        return old;
      }
      tookOver = old != null && !old.isCompleted();
      if (old != null && old.isCompleted()) {
        forgetCompletion(old);
      }
      created = new Entry(key, owner, fingerprint, null, now + leaseNanos);
      return created;
    }
  }

  /**
   * Replaces a claim that {@code owner} still holds: by its outcome ({@link #complete}, {@code
   * outcome} set) or by the same claim with a new deadline ({@link #renew}, {@code outcome ==
   * null}). Anything else is left as it is.
   */
  private final class OwnedUpdate implements BiFunction<RecordKey, Entry, Entry> {
    private final String owner;
    private final byte[] outcome;
    private final long expiresAfterNanos;
    Entry created;

    /**
     * The oldest completed record, to be removed at once because this completion made too many for
     * the slack; or null.
     */
    Entry evicted;

    /** Whether this completion took the completed records past the maximum size. */
    boolean evictionDue;

    OwnedUpdate(String owner, byte[] outcome, long expiresAfterNanos) {
      this.owner = owner;
      this.outcome = outcome;
      this.expiresAfterNanos = expiresAfterNanos;
    }

    @Override
    public Entry apply(RecordKey key, Entry old) {
      long now = timeSource.nanoTime();
      if (!old.isHeldBy(owner, now)) {
        created = null;
        return old;
      }
      if (outcome == null) {
        created = new Entry(key, old.owner, old.fingerprint, null, now + expiresAfterNanos);
        return created;
      }
      // A completed record keeps no owner: nothing asks for it once the claim is over.
      created = new Entry(key, null, old.fingerprint, outcome, now + expiresAfterNanos);
      // Too many for the slack: this completion evicts the oldest itself (the caller removes it
      // from the cache, outside the cache's lock). Otherwise an eviction run is queued.
      synchronized (completionOrder) {
        completionOrder.append(created);
        if (completionOrder.size > maximumSize + evictionSlack) {
          evicted = completionOrder.removeOldest();
        } else {
          evictionDue = completionOrder.size > maximumSize;
        }
      }
      return created;
    }
  }

  private final class Release implements BiFunction<RecordKey, Entry, Entry> {
    private final String owner;
    boolean released;

    Release(String owner) {
      this.owner = owner;
    }

    @Override
    public Entry apply(RecordKey key, Entry old) {
      released = old.isHeldBy(owner, timeSource.nanoTime());
      return released ? null : old;
    }
  }

  /**
   * The atomic step of {@link #delete}: removes a live record of any owner; an expired one is left
   * to expire.
   */
  private final class Deletion implements BiFunction<RecordKey, Entry, Entry> {
    boolean deleted;

    @Override
    public Entry apply(RecordKey key, Entry old) {
      deleted = old.isLiveAt(timeSource.nanoTime());
      if (!deleted) {
        return old;
      }
      if (old.isCompleted()) {
        forgetCompletion(old);
      }
      return null;
    }
  }

  /**
   * The completed entries, oldest first, linked through their own fields; guarded by its monitor.
   */
  private static final class CompletionOrder {
    private Entry oldest;
    private Entry newest;
    int size;

    void append(Entry e) {
      e.older = newest;
      e.newer = null;
      if (newest == null) {
        oldest = e;
      } else {
        newest.newer = e;
      }
      newest = e;
      e.ordered = true;
      size++;
    }

    Entry removeOldest() {
      Entry e = oldest;
      if (e != null) {
        remove(e);
      }
      return e;
    }

    void remove(Entry e) {
      if (!e.ordered) {
        return;
      }
      if (e.older == null) {
        oldest = e.newer;
      } else {
        e.older.newer = e.newer;
      }
      if (e.newer == null) {
        newest = e.older;
      } else {
        e.newer.older = e.older;
      }
      e.older = null;
      e.newer = null;
      e.ordered = false;
      size--;
    }

    void clear() {
      for (Entry e = oldest; e != null; ) {
        Entry next = e.newer;
        e.older = null;
        e.newer = null;
        e.ordered = false;
        e = next;
      }
      oldest = null;
      newest = null;
      size = 0;
    }
  }

  /** Wakes the waiters of one key once; replaced by a fresh one for later waiters. */
  private static final class ChangeSignal {
    final CountDownLatch fired = new CountDownLatch(1);

    /** Guarded by the signals map's per-key locking (only changed inside compute). */
    int waiters;
  }

  // ----------------------------------------------------------------------------------------------
  // builder

  /**
   * Settings of a {@link CaffeineIdempotencyStore}. Immutable: each method returns a new builder,
   * and each validates its value at once.
   */
  public static final class Builder {
    private final long maximumSize;
    private final TimeSource timeSource;
    private final Executor executor;

    private Builder(long maximumSize, TimeSource timeSource, Executor executor) {
      this.maximumSize = maximumSize;
      this.timeSource = timeSource;
      this.executor = executor;
    }

    /**
     * The most completed records kept; each completion beyond it evicts the record completed
     * longest ago, which then behaves as missing, so a duplicate of an evicted key runs again.
     * Claims in progress do not count and are never evicted. Default {@value
     * #DEFAULT_MAXIMUM_SIZE}.
     *
     * @throws IllegalArgumentException when {@code maximumSize} is not positive
     */
    public Builder maximumSize(long maximumSize) {
      if (maximumSize <= 0) {
        throw new IllegalArgumentException(
            "maximumSize must be positive, was "
                + maximumSize
                + ": pass the most records to keep, for example 100000 (the default)");
      }
      return new Builder(maximumSize, timeSource, executor);
    }

    /**
     * The clock that measures leases and ttls (also the cache's ticker). Default {@link
     * TimeSource#system()}; tests pass a fake clock.
     */
    public Builder timeSource(TimeSource timeSource) {
      if (timeSource == null) {
        throw new IllegalArgumentException(
            "timeSource must not be null: pass TimeSource.system() or a test clock");
      }
      return new Builder(maximumSize, timeSource, executor);
    }

    /** Where the cache runs its maintenance; tests of eviction pass {@code Runnable::run}. */
    Builder executor(Executor executor) {
      return new Builder(maximumSize, timeSource, Objects.requireNonNull(executor, "executor"));
    }

    /** The store. */
    public CaffeineIdempotencyStore build() {
      return new CaffeineIdempotencyStore(this);
    }
  }
}
