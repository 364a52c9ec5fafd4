package dev.idempotent.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.idempotent.TimeSource;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
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
 * The eviction runs on the cache's executor right after the completion; while it is behind, at most
 * {@code min(1024, maximumSize / 64)} more records are kept, and a completion past those evicts the
 * oldest itself. Claims in progress do not count and are never evicted (they expire with their
 * lease). Outcomes are copied on {@link #complete} and {@link #read}; a replay answer of {@link
 * #claim} holds the stored array itself (see {@link IdempotencyRecord#outcome()}: do not modify),
 * and replays of one record within a millisecond share one answer. {@link #awaitChange} wakes up as
 * soon as the holder completes or releases the key, or it is {@link #delete deleted}.
 *
 * <p>The store is also an {@link AsyncIdempotencyStore}: each asynchronous operation is the same
 * atomic step, answered by a completed stage, and {@link #awaitChangeAsync} completes on the
 * cache's executor when the key changes, or from a timer; no thread waits for it.
 *
 * <p>The parts: the records ({@link MemoryRecord}), the size bound ({@link CompletionOrder}) and
 * its evictions ({@link Evictions}), and the waiters ({@link ChangeSignals}); this class is the
 * protocol over them and the cache.
 */
public final class CaffeineIdempotencyStore implements IdempotencyStore, AsyncIdempotencyStore {
  private static final Logger log = LoggerFactory.getLogger(CaffeineIdempotencyStore.class);

  /** Default of {@link Builder#maximumSize(long)}. */
  public static final long DEFAULT_MAXIMUM_SIZE = 100_000;

  /**
   * Longest lease, ttl or wait honoured (about 73 years), so that clock arithmetic never overflows.
   */
  private static final long MAX_NANOS = Long.MAX_VALUE >> 2;

  private static final CompletionStage<Boolean> TRUE = CompletableFuture.completedStage(true);
  private static final CompletionStage<Boolean> FALSE = CompletableFuture.completedStage(false);

  private final Cache<RecordKey, MemoryRecord> cache;
  private final ConcurrentMap<RecordKey, MemoryRecord> map;

  /**
   * For lock-free lookups that neither read the cache's ticker nor record the access (this class
   * checks expiry).
   */
  private final Policy<RecordKey, MemoryRecord> policy;

  private final TimeSource timeSource;
  private final CompletionOrder completionOrder;
  private final Evictions evictions;
  private final ChangeSignals signals;

  private CaffeineIdempotencyStore(Builder builder) {
    this.timeSource = builder.timeSource;
    this.completionOrder = new CompletionOrder(builder.maximumSize);
    // The cache only expires records; the size bound is the completion order's (see there why).
    Caffeine<RecordKey, MemoryRecord> caffeine =
        Caffeine.newBuilder()
            .ticker(builder.timeSource::nanoTime)
            .expireAfter(new RecordExpiry())
            .evictionListener(
                (RecordKey key, MemoryRecord record, RemovalCause cause) -> {
                  if (key != null && record != null && record.isCompleted()) {
                    completionOrder.remove(record);
                  }
                });
    if (builder.executor != null) {
      caffeine.executor(builder.executor);
    }
    Executor executor = builder.executor != null ? builder.executor : ForkJoinPool.commonPool();
    this.cache = caffeine.build();
    this.map = cache.asMap();
    this.policy = cache.policy();
    this.evictions = new Evictions(completionOrder, executor, r -> map.remove(r.key, r));
    this.signals = new ChangeSignals(this::heldNanos, executor);
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
    return claimNanos(key, ownerToken, fingerprint, positiveNanos(lease, "lease"));
  }

  private ClaimResult claimNanos(
      RecordKey key, String ownerToken, String fingerprint, long leaseNanos) {
    // Lock-free fast path: a live record answers the claim without writing (a replay, or a claim
    // held by a running call). Only a free or expired key takes the per-key lock below.
    MemoryRecord current = policy.getIfPresentQuietly(key);
    if (current != null) {
      long now = timeSource.nanoTime();
      if (current.isLiveAt(now)) {
        return current.isCompleted()
            ? current.replay(key, now)
            : ClaimResult.existing(current.toRecord(key, now, false));
      }
    } else {
      // A fresh key, the common case: one insertion, as cheap as the cache gets. Only when another
      // caller got there first (or the cache still holds an expired record) does the claim take
      // the full step below.
      MemoryRecord created =
          MemoryRecord.claim(key, ownerToken, fingerprint, timeSource.nanoTime() + leaseNanos);
      if (map.putIfAbsent(key, created) == null) {
        return ClaimResult.acquired();
      }
    }
    ClaimAttempt attempt = new ClaimAttempt(ownerToken, fingerprint, leaseNanos);
    MemoryRecord result = map.compute(key, attempt);
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
    return completeNanos(key, ownerToken, outcome, positiveNanos(ttl, "ttl"));
  }

  private boolean completeNanos(RecordKey key, String ownerToken, byte[] outcome, long ttlNanos) {
    Completion completion = new Completion(ownerToken, outcome.clone(), ttlNanos);
    MemoryRecord result = map.computeIfPresent(key, completion);
    if (result == null || result != completion.created) {
      return false;
    }
    evictions.afterCompletion(completion.admission);
    signals.signal(key);
    return true;
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Release release = new Release(ownerToken);
    map.computeIfPresent(key, release);
    if (release.released) {
      signals.signal(key);
      return true;
    }
    return false;
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    return renewNanos(key, ownerToken, positiveNanos(lease, "lease"));
  }

  private boolean renewNanos(RecordKey key, String ownerToken, long leaseNanos) {
    Renewal renewal = new Renewal(ownerToken, leaseNanos);
    MemoryRecord result = map.computeIfPresent(key, renewal);
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
    map.computeIfPresent(key, deletion);
    if (deletion.deleted) {
      signals.signal(key);
      return true;
    }
    return false;
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    Objects.requireNonNull(key, "key");
    MemoryRecord current = policy.getIfPresentQuietly(key);
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
    signals.await(key, waitNanos(maxWait));
  }

  // ----------------------------------------------------------------------------------------------
  // the same protocol, answered by stages

  @Override
  public CompletionStage<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    long leaseNanos = positiveNanos(lease, "lease");
    try {
      return CompletableFuture.completedStage(claimNanos(key, ownerToken, fingerprint, leaseNanos));
    } catch (RuntimeException e) {
      return CompletableFuture.failedStage(e);
    }
  }

  @Override
  public CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    Objects.requireNonNull(outcome, "outcome");
    long ttlNanos = positiveNanos(ttl, "ttl");
    try {
      return answer(completeNanos(key, ownerToken, outcome, ttlNanos));
    } catch (RuntimeException e) {
      return CompletableFuture.failedStage(e);
    }
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    try {
      return answer(release(key, ownerToken));
    } catch (RuntimeException e) {
      return CompletableFuture.failedStage(e);
    }
  }

  @Override
  public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ownerToken, "ownerToken");
    long leaseNanos = positiveNanos(lease, "lease");
    try {
      return answer(renewNanos(key, ownerToken, leaseNanos));
    } catch (RuntimeException e) {
      return CompletableFuture.failedStage(e);
    }
  }

  @Override
  public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
    Objects.requireNonNull(key, "key");
    try {
      return CompletableFuture.completedStage(read(key));
    } catch (RuntimeException e) {
      return CompletableFuture.failedStage(e);
    }
  }

  /**
   * Completes as soon as the holder of {@code key} completes or releases it or it is deleted (on
   * the cache's executor), when its lease ends or after {@code maxWait} (from a timer), whichever
   * comes first; completes at once when the key is not held. Never completes exceptionally.
   */
  @Override
  public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
    Objects.requireNonNull(key, "key");
    return signals.awaitAsync(key, waitNanos(maxWait));
  }

  // ----------------------------------------------------------------------------------------------

  /** Drops every record and wakes every waiter. */
  @Override
  public void close() {
    cache.invalidateAll();
    completionOrder.clear();
    signals.signalAll();
  }

  @Override
  public String toString() {
    return "CaffeineIdempotencyStore{maximumSize=" + completionOrder.maximumSize() + "}";
  }

  /**
   * The number of records held, expired ones included until the cache cleans them up (approximate).
   */
  long estimatedSize() {
    return cache.estimatedSize();
  }

  /** The number of live completed records, the count bounded by the maximum size. */
  int completedCount() {
    return completionOrder.size();
  }

  /** The number of keys someone waits on in {@link #awaitChange} or {@link #awaitChangeAsync}. */
  int waitedKeyCount() {
    return signals.waitedKeyCount();
  }

  /** Runs the pending evictions and the cache's maintenance (expiry) now. */
  void cleanUp() {
    evictions.evictOverflow();
    cache.cleanUp();
  }

  /** How long the claim on {@code key} still holds it, or zero when none does. */
  private long heldNanos(RecordKey key) {
    MemoryRecord current = policy.getIfPresentQuietly(key);
    if (current == null || current.isCompleted()) {
      return 0;
    }
    return Math.max(current.deadline - timeSource.nanoTime(), 0);
  }

  private static CompletionStage<Boolean> answer(boolean applied) {
    return applied ? TRUE : FALSE;
  }

  private static long positiveNanos(Duration d, String name) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
    }
    return saturatedNanos(d);
  }

  private static long waitNanos(Duration maxWait) {
    return maxWait == null || maxWait.isNegative() ? 0 : saturatedNanos(maxWait);
  }

  private static long saturatedNanos(Duration d) {
    if (d.getSeconds() >= MAX_NANOS / 1_000_000_000L) {
      return MAX_NANOS;
    }
    return Math.min(d.toNanos(), MAX_NANOS);
  }

  // ----------------------------------------------------------------------------------------------
  // the atomic steps, each run by the cache inside its per-key lock

  private static final class RecordExpiry implements Expiry<RecordKey, MemoryRecord> {
    @Override
    public long expireAfterCreate(RecordKey key, MemoryRecord value, long currentTime) {
      return Math.max(value.retainUntil() - currentTime, 0);
    }

    @Override
    public long expireAfterUpdate(
        RecordKey key, MemoryRecord value, long currentTime, long currentDuration) {
      return Math.max(value.retainUntil() - currentTime, 0);
    }

    @Override
    public long expireAfterRead(
        RecordKey key, MemoryRecord value, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  /** The atomic step of {@link #claim}; one allocation per claim that reaches the cache's lock. */
  private final class ClaimAttempt implements BiFunction<RecordKey, MemoryRecord, MemoryRecord> {
    private final String owner;
    private final String fingerprint;
    private final long leaseNanos;
    MemoryRecord created;
    boolean tookOver;

    ClaimAttempt(String owner, String fingerprint, long leaseNanos) {
      this.owner = owner;
      this.fingerprint = fingerprint;
      this.leaseNanos = leaseNanos;
    }

    @Override
    public MemoryRecord apply(RecordKey key, MemoryRecord old) {
      long now = timeSource.nanoTime();
      if (old != null && old.isLiveAt(now)) {
        created = null;
        return old;
      }
      tookOver = old != null && !old.isCompleted();
      if (old != null && old.isCompleted()) {
        completionOrder.remove(old);
      }
      created = MemoryRecord.claim(key, owner, fingerprint, now + leaseNanos);
      return created;
    }
  }

  /**
   * The atomic step of {@link #complete}: the claim {@code owner} still holds becomes its outcome,
   * the newest of the completion order. Anything else is left as it is.
   */
  private final class Completion implements BiFunction<RecordKey, MemoryRecord, MemoryRecord> {
    private final String owner;
    private final byte[] outcome;
    private final long ttlNanos;
    MemoryRecord created;

    /** What the completing thread does about the size bound, outside the cache's lock. */
    CompletionOrder.Admission admission;

    Completion(String owner, byte[] outcome, long ttlNanos) {
      this.owner = owner;
      this.outcome = outcome;
      this.ttlNanos = ttlNanos;
    }

    @Override
    public MemoryRecord apply(RecordKey key, MemoryRecord old) {
      long now = timeSource.nanoTime();
      if (!old.isHeldBy(owner, now)) {
        created = null;
        return old;
      }
      created = old.completedWith(outcome, now + ttlNanos);
      admission = completionOrder.add(created);
      return created;
    }
  }

  /** The atomic step of {@link #renew}: the claim {@code owner} still holds, with a new lease. */
  private final class Renewal implements BiFunction<RecordKey, MemoryRecord, MemoryRecord> {
    private final String owner;
    private final long leaseNanos;
    MemoryRecord created;

    Renewal(String owner, long leaseNanos) {
      this.owner = owner;
      this.leaseNanos = leaseNanos;
    }

    @Override
    public MemoryRecord apply(RecordKey key, MemoryRecord old) {
      long now = timeSource.nanoTime();
      if (!old.isHeldBy(owner, now)) {
        created = null;
        return old;
      }
      created = old.renewedUntil(now + leaseNanos);
      return created;
    }
  }

  /** The atomic step of {@link #release}: removes the claim {@code owner} still holds. */
  private final class Release implements BiFunction<RecordKey, MemoryRecord, MemoryRecord> {
    private final String owner;
    boolean released;

    Release(String owner) {
      this.owner = owner;
    }

    @Override
    public MemoryRecord apply(RecordKey key, MemoryRecord old) {
      released = old.isHeldBy(owner, timeSource.nanoTime());
      return released ? null : old;
    }
  }

  /**
   * The atomic step of {@link #delete}: removes a live record of any owner; an expired one is left
   * to expire.
   */
  private final class Deletion implements BiFunction<RecordKey, MemoryRecord, MemoryRecord> {
    boolean deleted;

    @Override
    public MemoryRecord apply(RecordKey key, MemoryRecord old) {
      deleted = old.isLiveAt(timeSource.nanoTime());
      if (!deleted) {
        return old;
      }
      if (old.isCompleted()) {
        completionOrder.remove(old);
      }
      return null;
    }
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
