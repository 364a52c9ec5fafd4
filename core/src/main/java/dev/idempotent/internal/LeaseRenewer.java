package dev.idempotent.internal;

import dev.idempotent.IdempotencyEvent;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the claims of running calls alive. Registering a call is one set insertion: no thread, task
 * or timer per call.
 *
 * <p>One scheduler thread for the JVM wakes every {@value #TICK_MILLIS} ms. A claim is due once a
 * third of its lease has passed since its last renewal. Each pass, per store, it orders the due
 * claims by deadline (the end of their lease), earliest first, cuts them into batches of at most
 * {@value #BATCH_SIZE} claims of one lease and sends up to {@value #MAX_BATCHES_IN_FLIGHT} batches
 * per store at once (the next as soon as one answers), each with one call: {@link
 * AsyncIdempotencyStore#renewAllAsync} when the store has a non-blocking face of its own (its
 * client's), else {@link IdempotencyStore#renewAll} on the renewer's own worker threads (at most
 * {@value #MAX_WORKERS}; not on the offload threads where callers' deferred operations queue, so
 * that a burst of calls never delays the renewals). So the scheduler never blocks on a store, one
 * round trip renews hundreds of claims, and a store whose renewals hang holds back only its own
 * claims, never another store's. A batch that has not answered within its lease frees its place
 * (its claims are due again at once); the answers are handled on the renewer's own worker threads,
 * never on a store client's thread.
 *
 * <p>Nothing a renewal throws, {@link Error}s included, stops the renewals: it is logged once per
 * batch and emitted per claim as {@link IdempotencyEvent.Type#RENEWAL_FAILED}, and the claims are
 * retried after a tenth of the lease. A claim not renewed for two thirds of its lease (its store is
 * slow or down) is logged once and emitted as {@link IdempotencyEvent.Type#RENEWAL_LATE}. A renewal
 * the store refuses means the claim was taken over (the holder was paused past its lease): the
 * claim is dropped and reported as {@link IdempotencyEvent.Type#FENCED}; its holder's later
 * complete will be refused too.
 *
 * <p>Each pass also measures, per store, the renewal lag: how late the most overdue renewal is
 * (zero while every claim is renewed by the time it is due), read through {@link
 * dev.idempotent.LeaseRenewals}. Once a claim has gone half its lease unrenewed (its lag is a sixth
 * of the lease) the store's renewals are falling behind: a WARN says so, at most every {@value
 * #LAG_WARN_EVERY_SECONDS} s per store, before any lease can end; an INFO says when they caught up.
 *
 * <p>A claim held for its max-hold is no longer renewed ({@link
 * IdempotencyEvent.Type#MAX_HOLD_REACHED} and a WARN): it ends with its lease, so a call that never
 * finishes (a {@code CompletionStage} nobody completes, a hung method) cannot hold its key for
 * ever.
 */
public final class LeaseRenewer {
  static final long TICK_MILLIS = 50;
  static final int BATCH_SIZE = 256;
  static final int MAX_BATCHES_IN_FLIGHT = 4;
  static final int MAX_WORKERS = 16;
  static final long LAG_WARN_EVERY_SECONDS = 10;

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.lease");
  private static final LeaseRenewer SHARED = new LeaseRenewer();
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
  private static final long LAG_WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(LAG_WARN_EVERY_SECONDS);

  private final Set<ActiveClaim> claims = ConcurrentHashMap.newKeySet();

  /** The stores claims are held in; only the scheduler thread adds or removes one. */
  private final Map<IdempotencyStore, Lane> lanes = new ConcurrentHashMap<>();

  /**
   * The name of each store, as {@link dev.idempotent.LeaseRenewals} shows it; guarded by itself.
   */
  private final Map<IdempotencyStore, String> names = new WeakHashMap<>();

  private final Set<String> announced = ConcurrentHashMap.newKeySet();
  private final List<Consumer<String>> storeObservers = new CopyOnWriteArrayList<>();

  private volatile boolean running;
  private volatile ScheduledThreadPoolExecutor scheduler;
  private volatile ThreadPoolExecutor workers;

  /** Whether a pass out of turn is already queued (after a batch answered). */
  private final java.util.concurrent.atomic.AtomicBoolean passQueued =
      new java.util.concurrent.atomic.AtomicBoolean();

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
    final String storeName;
    final RecordKey key;
    final String ownerToken;
    final Duration lease;
    final long leaseNanos;
    final long renewEveryNanos;
    final long retryPauseNanos;
    final long startedNanos;
    final long maxHoldNanos;
    final Events events;
    volatile long lastRenewedNanos;
    volatile long notBeforeNanos;

    /**
     * Set by the scheduler thread when it puts the claim in a batch, cleared when the batch has
     * answered.
     */
    volatile boolean renewing;

    volatile boolean lateReported;

    ActiveClaim(
        IdempotencyStore store,
        String storeName,
        RecordKey key,
        String ownerToken,
        Duration lease,
        Duration maxHold,
        Events events) {
      this.store = store;
      this.storeName = storeName;
      this.key = key;
      this.ownerToken = ownerToken;
      this.lease = lease;
      this.leaseNanos = lease.toNanos();
      this.renewEveryNanos = Math.max(leaseNanos / 3, TICK_NANOS);
      this.retryPauseNanos = Math.max(leaseNanos / 10, TICK_NANOS);
      this.maxHoldNanos = maxHold.toNanos();
      this.events = events;
      this.startedNanos = System.nanoTime();
      this.lastRenewedNanos = startedNanos;
      this.hash = Long.hashCode(startedNanos * 0x9E3779B97F4A7C15L);
    }

    long deadlineNanos() {
      return lastRenewedNanos + leaseNanos;
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

  /** The renewals of one store. Figures are written by the scheduler thread only. */
  static final class Lane {
    final IdempotencyStore store;
    final String name;
    final AtomicInteger inFlight = new AtomicInteger();
    volatile long lagNanos;
    volatile int held;
    long lastWarnNanos;
    boolean behind;

    // this pass
    final List<ActiveClaim> due = new ArrayList<>();
    int passHeld;
    int passOverdue;
    long passLag;
    ActiveClaim passWorst;
    long passWorstShare;

    Lane(IdempotencyStore store, String name) {
      this.store = store;
      this.name = name;
    }
  }

  /**
   * Starts renewing a claim until {@link #stop}, or until it has been held for {@code maxHold}.
   * Starts the renewer's threads if they are not running.
   *
   * @param storeName the store's name in the configuration ({@code ""}: the default store)
   */
  public ActiveClaim start(
      IdempotencyStore store,
      String storeName,
      RecordKey key,
      String ownerToken,
      Duration lease,
      Duration maxHold,
      Events events) {
    ActiveClaim claim = new ActiveClaim(store, storeName, key, ownerToken, lease, maxHold, events);
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

  /** The renewal lag of the store named {@code name}, in nanoseconds; 0 when it holds no claim. */
  public long lagNanos(String name) {
    Lane lane = lane(name);
    return lane == null ? 0 : lane.lagNanos;
  }

  /** The claims held in the store named {@code name}. */
  public int heldClaims(String name) {
    Lane lane = lane(name);
    return lane == null ? 0 : lane.held;
  }

  /** The names of the stores claims have been held in. */
  public Set<String> storeNames() {
    return Collections.unmodifiableSet(new TreeSet<>(announced));
  }

  /** See {@link dev.idempotent.LeaseRenewals#onStore}. */
  public AutoCloseable onStore(Consumer<String> observer) {
    storeObservers.add(observer);
    for (String name : announced) {
      observer.accept(name);
    }
    return () -> storeObservers.remove(observer);
  }

  private Lane lane(String name) {
    for (Lane lane : lanes.values()) {
      if (lane.name.equals(name)) {
        return lane;
      }
    }
    return null;
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
    lanes.clear();
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
            MAX_WORKERS,
            MAX_WORKERS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            LibraryThreads.named("idempotent-lease-worker"));
    w.allowCoreThreadTimeOut(true);
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
      Map<IdempotencyStore, Lane> seen = new IdentityHashMap<>();
      for (ActiveClaim c : claims) {
        try {
          consider(c, now, seen);
        } catch (Throwable t) {
          LOG.error(
              "lease renewal of {} could not be scheduled; trying again on the next tick",
              c.key,
              t);
        }
      }
      for (Lane lane : seen.values()) {
        try {
          finishPass(lane, now, pool);
        } catch (Throwable t) {
          LOG.error(
              "lease renewal of store {} failed; trying again on the next tick", lane.name, t);
        }
      }
      lanes
          .values()
          .removeIf(
              lane -> {
                if (seen.containsKey(lane.store)) {
                  return false;
                }
                lane.held = 0;
                lane.lagNanos = 0;
                return lane.inFlight.get() == 0;
              });
    } catch (Throwable t) {
      LOG.error("lease renewal pass failed; trying again on the next tick", t);
    }
  }

  private Lane laneOf(ActiveClaim c, Map<IdempotencyStore, Lane> seen) {
    Lane lane = seen.get(c.store);
    if (lane == null) {
      lane = lanes.get(c.store);
      if (lane == null) {
        lane = new Lane(c.store, nameOf(c));
        lanes.put(c.store, lane);
        announce(lane.name);
      }
      lane.due.clear();
      lane.passHeld = 0;
      lane.passOverdue = 0;
      lane.passLag = 0;
      lane.passWorst = null;
      lane.passWorstShare = 0;
      seen.put(c.store, lane);
    }
    return lane;
  }

  private String nameOf(ActiveClaim c) {
    String base = c.storeName == null || c.storeName.isEmpty() ? "default" : c.storeName;
    synchronized (names) {
      String known = names.get(c.store);
      if (known != null) {
        return known;
      }
      String name = base;
      for (int n = 2; names.containsValue(name); n++) {
        name = base + "#" + n;
      }
      names.put(c.store, name);
      return name;
    }
  }

  private void announce(String name) {
    if (announced.add(name)) {
      for (Consumer<String> observer : storeObservers) {
        try {
          observer.accept(name);
        } catch (Throwable t) {
          LOG.warn("an observer of lease renewals failed on store {}", name, t);
        }
      }
    }
  }

  private void consider(ActiveClaim c, long now, Map<IdempotencyStore, Lane> seen) {
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
    Lane lane = laneOf(c, seen);
    lane.passHeld++;
    long since = now - c.lastRenewedNanos;
    long overdue = since - c.renewEveryNanos;
    if (overdue < 0) {
      return;
    }
    lane.passOverdue++;
    if (overdue > lane.passLag) {
      lane.passLag = overdue;
    }
    long share = overdue * 1000 / Math.max(1, c.leaseNanos);
    if (lane.passWorst == null || share > lane.passWorstShare) {
      lane.passWorst = c;
      lane.passWorstShare = share;
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
    lane.due.add(c);
  }

  /** Publishes the lane's figures of this pass, warns when it falls behind, sends its batches. */
  private void finishPass(Lane lane, long now, ThreadPoolExecutor pool) {
    lane.held = lane.passHeld;
    lane.lagNanos = lane.passLag;
    ActiveClaim worst = lane.passWorst;
    // a sixth of the lease overdue: the claim has gone half its lease unrenewed
    boolean behind = worst != null && lane.passWorstShare * 6 >= 1000;
    if (behind && now - lane.lastWarnNanos >= LAG_WARN_EVERY_NANOS || behind && !lane.behind) {
      lane.lastWarnNanos = now;
      LOG.warn(
          "lease renewals of store {} are falling behind: the most overdue is {} ms late, {} of {}"
              + " held claims are overdue; the lease of {} ends in {} ms unless renewed, and then"
              + " another caller can take its key over while this call still runs (metric"
              + " idempotent.lease.renewal.lag: the store is slow or down, or this JVM holds more"
              + " claims than it can renew)",
          lane.name,
          lane.passLag / 1_000_000,
          lane.passOverdue,
          lane.passHeld,
          worst.key,
          Math.max(0, (worst.deadlineNanos() - now) / 1_000_000));
    } else if (!behind && lane.behind) {
      LOG.info("lease renewals of store {} have caught up", lane.name);
    }
    lane.behind = behind;
    List<ActiveClaim> due = lane.due;
    if (due.isEmpty() || lane.inFlight.get() >= MAX_BATCHES_IN_FLIGHT) {
      due.clear();
      return;
    }
    due.sort(Comparator.comparingLong(ActiveClaim::deadlineNanos));
    Map<Long, List<ActiveClaim>> open = new LinkedHashMap<>();
    for (ActiveClaim c : due) {
      List<ActiveClaim> batch = open.computeIfAbsent(c.leaseNanos, l -> new ArrayList<>());
      batch.add(c);
      if (batch.size() == BATCH_SIZE) {
        open.remove(c.leaseNanos);
        if (!send(lane, batch, pool)) {
          break;
        }
      }
    }
    if (lane.inFlight.get() < MAX_BATCHES_IN_FLIGHT) {
      List<List<ActiveClaim>> rest = new ArrayList<>(open.values());
      rest.sort(Comparator.comparingLong(b -> b.get(0).deadlineNanos()));
      for (List<ActiveClaim> batch : rest) {
        if (!send(lane, batch, pool)) {
          break;
        }
      }
    }
    due.clear();
  }

  /** Sends one batch; false (and nothing sent) when the lane has no place left. */
  private boolean send(Lane lane, List<ActiveClaim> batch, ThreadPoolExecutor pool) {
    if (lane.inFlight.get() >= MAX_BATCHES_IN_FLIGHT) {
      return false;
    }
    lane.inFlight.incrementAndGet();
    List<HeldClaim> held = new ArrayList<>(batch.size());
    for (ActiveClaim c : batch) {
      c.renewing = true;
      held.add(new HeldClaim(c.key, c.ownerToken));
    }
    Duration lease = batch.get(0).lease;
    long sent = System.nanoTime();
    CompletableFuture<boolean[]> answer = new CompletableFuture<>();
    try {
      CompletionStage<boolean[]> stage =
          AsyncStores.nonBlockingOfItsOwn(lane.store)
              ? AsyncStores.of(lane.store).renewAllAsync(held, lease)
              : CompletableFuture.supplyAsync(() -> lane.store.renewAll(held, lease), pool);
      stage.whenComplete(
          (renewed, error) -> {
            if (error != null) {
              answer.completeExceptionally(error);
            } else {
              answer.complete(renewed);
            }
          });
    } catch (Throwable t) {
      answer.completeExceptionally(t);
    }
    answer
        .orTimeout(batch.get(0).leaseNanos, TimeUnit.NANOSECONDS)
        .whenCompleteAsync(
            (renewed, error) -> settle(lane, batch, sent, renewed, error), whenDone(pool));
    return true;
  }

  /** Runs on the workers; inline when they are stopped, so that a batch always settles. */
  private static java.util.concurrent.Executor whenDone(ThreadPoolExecutor pool) {
    return task -> {
      try {
        pool.execute(task);
      } catch (RuntimeException rejected) {
        task.run();
      }
    };
  }

  private void settle(
      Lane lane, List<ActiveClaim> batch, long sent, boolean[] renewed, Throwable error) {
    try {
      if (error == null && (renewed == null || renewed.length != batch.size())) {
        error =
            new IllegalStateException(
                "the store answered "
                    + (renewed == null ? "null" : renewed.length + " results")
                    + " to a renewal of "
                    + batch.size()
                    + " claims");
      }
      if (error != null) {
        failed(lane, batch, Protocol.unwrap(error));
        return;
      }
      for (int i = 0; i < renewed.length; i++) {
        ActiveClaim c = batch.get(i);
        if (renewed[i]) {
          c.lastRenewedNanos = sent;
          if (c.lateReported) {
            c.lateReported = false;
            LOG.info("the lease of {} is renewed again", c.key);
          }
        } else if (claims.remove(c)) {
          LOG.warn(
              "lease of {} was lost: another caller took the key over; this holder's outcome will"
                  + " not be recorded",
              c.key);
          report(c, IdempotencyEvent.Type.FENCED, null);
        }
      }
    } catch (Throwable t) {
      LOG.error("the answer to a renewal of {} claims could not be handled", batch.size(), t);
    } finally {
      for (ActiveClaim c : batch) {
        c.renewing = false;
      }
      lane.inFlight.decrementAndGet();
      passNow();
    }
  }

  /**
   * Queues a pass out of turn, so that claims waiting for a place in flight are sent as soon as a
   * batch has answered rather than on the next tick.
   */
  private void passNow() {
    ScheduledThreadPoolExecutor s = scheduler;
    ThreadPoolExecutor w = workers;
    if (s == null || w == null || !passQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      s.execute(
          () -> {
            passQueued.set(false);
            tick(w);
          });
    } catch (RuntimeException stopped) {
      passQueued.set(false);
    }
  }

  private void failed(Lane lane, List<ActiveClaim> batch, Throwable error) {
    long retryAt = System.nanoTime();
    ActiveClaim first = batch.get(0);
    LOG.warn(
        "renewing the leases of {} claims in store {} (the first {}) failed, retrying in {} ms: {}",
        batch.size(),
        lane.name,
        first.key,
        first.retryPauseNanos / 1_000_000,
        error instanceof java.util.concurrent.TimeoutException
            ? "no answer within the lease"
            : Protocol.describe(error));
    for (ActiveClaim c : batch) {
      c.notBeforeNanos = retryAt + c.retryPauseNanos;
      if (claims.contains(c)) {
        report(c, IdempotencyEvent.Type.RENEWAL_FAILED, error);
      }
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
