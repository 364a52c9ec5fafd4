package dev.idempotent.internal;

import dev.idempotent.IdempotencyEvent;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the claims of running calls alive. Registering a call is one set insertion: no thread, task
 * or timer per call.
 *
 * <p>One scheduler thread for the JVM wakes every {@value #TICK_MILLIS} ms and only decides what is
 * due: a claim is due once a third of its lease has passed since its last renewal. It never calls a
 * store itself; it hands each due renewal to a bounded pool of worker threads (at most {@value
 * #MAX_WORKERS}, started on demand and ended when idle), with at most one renewal in flight per
 * claim and at most {@value #MAX_IN_FLIGHT_PER_STORE} per store. So a store whose {@code renew}
 * hangs (a dead cluster node, a long JDBC timeout) holds back only its own claims, never another
 * store's, and a slow key holds back only itself.
 *
 * <p>Nothing a renewal throws, {@link Error}s included, stops the renewals: it is logged and
 * emitted as {@link IdempotencyEvent.Type#RENEWAL_FAILED}, and the renewal is retried after a tenth
 * of the lease. A claim not renewed for two thirds of its lease (its store is slow or down) is
 * logged once and emitted as {@link IdempotencyEvent.Type#RENEWAL_LATE}. A renewal the store
 * refuses means the claim was taken over (the holder was paused past its lease): the claim is
 * dropped and reported as {@link IdempotencyEvent.Type#FENCED}; its holder's later complete will be
 * refused too.
 *
 * <p>A claim held for its max-hold is no longer renewed ({@link
 * IdempotencyEvent.Type#MAX_HOLD_REACHED} and a WARN): it ends with its lease, so a call that never
 * finishes (a {@code CompletionStage} nobody completes, a hung method) cannot hold its key for
 * ever.
 */
public final class LeaseRenewer {
  static final long TICK_MILLIS = 50;
  static final int MAX_WORKERS = 32;
  static final int MAX_IN_FLIGHT_PER_STORE = 8;

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.lease");
  private static final LeaseRenewer SHARED = new LeaseRenewer();
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);

  private final Set<ActiveClaim> claims = ConcurrentHashMap.newKeySet();

  /**
   * Renewals in flight per store; only the scheduler thread adds to a count or removes an entry.
   */
  private final Map<IdempotencyStore, AtomicInteger> inFlight = new ConcurrentHashMap<>();

  private volatile boolean running;
  private ScheduledThreadPoolExecutor scheduler;
  private ThreadPoolExecutor workers;

  public static LeaseRenewer shared() {
    return SHARED;
  }

  /** Where a claim's renewer reports what happened to it (on a renewer thread). */
  @FunctionalInterface
  public interface Events {
    /**
     * @param type {@code FENCED} (a renewal was refused), {@code RENEWAL_FAILED}, {@code
     *     RENEWAL_LATE} or {@code MAX_HOLD_REACHED}
     * @param error what a failed renewal threw, else {@code null}
     */
    void emit(IdempotencyEvent.Type type, Throwable error);
  }

  /** One running call's claim. */
  public static final class ActiveClaim {
    final IdempotencyStore store;
    final RecordKey key;
    final String ownerToken;
    final Duration lease;
    final long renewEveryNanos;
    final long retryPauseNanos;
    final long startedNanos;
    final long maxHoldNanos;
    final Events events;
    volatile long lastRenewedNanos;
    volatile long notBeforeNanos;

    /**
     * Set by the scheduler thread when it hands a renewal over, cleared by the worker when it is
     * done.
     */
    volatile boolean renewing;

    volatile boolean lateReported;

    ActiveClaim(
        IdempotencyStore store,
        RecordKey key,
        String ownerToken,
        Duration lease,
        Duration maxHold,
        Events events) {
      this.store = store;
      this.key = key;
      this.ownerToken = ownerToken;
      this.lease = lease;
      this.renewEveryNanos = Math.max(lease.toNanos() / 3, TICK_NANOS);
      this.retryPauseNanos = Math.max(lease.toNanos() / 10, TICK_NANOS);
      this.maxHoldNanos = maxHold.toNanos();
      this.events = events;
      this.startedNanos = System.nanoTime();
      this.lastRenewedNanos = startedNanos;
      this.hash = Long.hashCode(startedNanos * 0x9E3779B97F4A7C15L);
    }

    /**
     * The set of running claims hashes each one as it is registered: by its start time, mixed (an
     * identity hash made for every claim was a measurable part of a call). Equality stays identity;
     * two claims started in the same nanosecond only share a bucket.
     */
    private final int hash;

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return this == o;
    }
  }

  /**
   * Starts renewing a claim until {@link #stop}, or until it has been held for {@code maxHold}.
   * Starts the renewer's threads if they are not running.
   */
  public ActiveClaim start(
      IdempotencyStore store,
      RecordKey key,
      String ownerToken,
      Duration lease,
      Duration maxHold,
      Events events) {
    ActiveClaim claim = new ActiveClaim(store, key, ownerToken, lease, maxHold, events);
    claims.add(claim);
    if (!running) {
      startThreads();
    }
    return claim;
  }

  /** Stops renewing; idempotent. */
  public void stop(ActiveClaim claim) {
    claims.remove(claim);
  }

  /**
   * Stops the renewer's threads and forgets every claim (running calls are no longer renewed; their
   * claims end with their leases). The next {@link #start} starts the threads again.
   */
  public synchronized void shutdown() {
    running = false;
    ScheduledThreadPoolExecutor s = scheduler;
    ThreadPoolExecutor w = workers;
    scheduler = null;
    workers = null;
    LibraryThreads.stop(s);
    LibraryThreads.stop(w);
    int dropped = claims.size();
    claims.clear();
    inFlight.clear();
    if (dropped > 0) {
      LOG.info(
          "stopped renewing the claims of {} running calls: they end with their leases", dropped);
    }
  }

  private synchronized void startThreads() {
    if (running) {
      return;
    }
    ThreadPoolExecutor w =
        new ThreadPoolExecutor(
            0,
            MAX_WORKERS,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            LibraryThreads.named("idempotent-lease-worker"));
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(1, LibraryThreads.named("idempotent-lease-renewer"));
    s.scheduleWithFixedDelay(() -> tick(w), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    workers = w;
    scheduler = s;
    running = true;
  }

  /** One pass of the scheduler thread; never throws, so the periodic task is never cancelled. */
  private void tick(ThreadPoolExecutor pool) {
    try {
      long now = System.nanoTime();
      for (ActiveClaim c : claims) {
        try {
          consider(c, now, pool);
        } catch (Throwable t) {
          LOG.error(
              "lease renewal of {} could not be scheduled; trying again on the next tick",
              c.key,
              t);
        }
      }
      inFlight.values().removeIf(n -> n.get() == 0);
    } catch (Throwable t) {
      LOG.error("lease renewal pass failed; trying again on the next tick", t);
    }
  }

  private void consider(ActiveClaim c, long now, ThreadPoolExecutor pool) {
    if (now - c.startedNanos >= c.maxHoldNanos) {
      if (claims.remove(c)) {
        LOG.warn(
            "{} has been held for its max-hold of {} ms (idempotent.max-hold): its lease is no"
                + " longer renewed and ends within {} ms; after that a repeat runs the method"
                + " again, and this call's outcome is recorded only if it finishes before then",
            c.key,
            c.maxHoldNanos / 1_000_000,
            c.lease.toMillis());
        report(c, IdempotencyEvent.Type.MAX_HOLD_REACHED, null);
      }
      return;
    }
    long since = now - c.lastRenewedNanos;
    if (since < c.renewEveryNanos) {
      return;
    }
    if (since >= 2 * c.renewEveryNanos && !c.lateReported) {
      c.lateReported = true;
      LOG.warn(
          "renewing the lease of {} is late: last renewed {} ms ago, lease {} ms; if it is not"
              + " renewed in time another caller may take the key over while this call still runs",
          c.key,
          since / 1_000_000,
          c.lease.toMillis());
      report(c, IdempotencyEvent.Type.RENEWAL_LATE, null);
    }
    if (c.renewing || now < c.notBeforeNanos) {
      return;
    }
    AtomicInteger lane = inFlight.computeIfAbsent(c.store, s -> new AtomicInteger());
    if (lane.get() >= MAX_IN_FLIGHT_PER_STORE) {
      return;
    }
    c.renewing = true;
    lane.incrementAndGet();
    try {
      pool.execute(() -> renew(c, lane));
    } catch (RejectedExecutionException e) {
      c.renewing = false;
      lane.decrementAndGet();
    }
  }

  private void renew(ActiveClaim c, AtomicInteger lane) {
    long started = System.nanoTime();
    try {
      if (!claims.contains(c)) {
        return;
      }
      if (c.store.renew(c.key, c.ownerToken, c.lease)) {
        c.lastRenewedNanos = started;
        if (c.lateReported) {
          c.lateReported = false;
          LOG.info("the lease of {} is renewed again", c.key);
        }
      } else if (claims.remove(c)) {
        LOG.warn(
            "lease of {} was lost: another caller took the key over; this holder's outcome will not"
                + " be recorded",
            c.key);
        report(c, IdempotencyEvent.Type.FENCED, null);
      }
    } catch (Throwable t) {
      c.notBeforeNanos = System.nanoTime() + c.retryPauseNanos;
      LOG.warn(
          "renewing the lease of {} failed, retrying in {} ms: {}",
          c.key,
          c.retryPauseNanos / 1_000_000,
          IdempotencyExecutor.describe(t));
      report(c, IdempotencyEvent.Type.RENEWAL_FAILED, t);
    } finally {
      c.renewing = false;
      lane.decrementAndGet();
    }
  }

  private static void report(ActiveClaim c, IdempotencyEvent.Type type, Throwable error) {
    try {
      c.events.emit(type, error);
    } catch (Throwable t) {
      LOG.warn("reporting {} for {} failed", type, c.key, t);
    }
  }
}
