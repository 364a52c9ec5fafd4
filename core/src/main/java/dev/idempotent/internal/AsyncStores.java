package dev.idempotent.internal;

import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The non-blocking face of any store: the store itself when it implements {@link
 * AsyncIdempotencyStore}, else an adapter that runs its blocking operations on a bounded executor
 * of the store's own and waits with a timer.
 *
 * <p>The executor of an adapted store has at most {@value #THREADS} threads, named {@code
 * idempotent-offload}, and a queue of at most {@value #QUEUE} operations; an operation that finds
 * the queue full fails at once with an {@link IdempotencyStoreException} (a store failure: the
 * store-failure policy applies), so a slow store can never pile up work without a bound. {@link
 * AsyncIdempotencyStore#awaitChangeAsync} of an adapted store completes from a timer on the
 * library's one timer thread ({@code idempotent-timer}), never by parking a thread for the wait.
 */
public final class AsyncStores {
  static final int THREADS = 16;
  static final int QUEUE = 4096;

  private static final Map<IdempotencyStore, Offloading> ADAPTED =
      Collections.synchronizedMap(new WeakHashMap<>());
  private static volatile ScheduledExecutorService timer;

  /**
   * Every offload pool still reachable: a pool whose store was collected leaves {@link #ADAPTED}
   * but keeps its threads until their keep-alive ends, and shutdown stops those too.
   */
  private static final java.util.Set<ThreadPoolExecutor> POOLS =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private AsyncStores() {}

  /** The non-blocking face of {@code store}. */
  public static AsyncIdempotencyStore of(IdempotencyStore store) {
    if (store instanceof AsyncIdempotencyStore async) {
      return async;
    }
    return ADAPTED.computeIfAbsent(store, Offloading::new);
  }

  /**
   * Whether {@code store}'s non-blocking face is its own (the backend's asynchronous client), seen
   * through the library's own wrappers, rather than its blocking operations run on the offload
   * threads this class adapts it with.
   */
  static boolean nonBlockingOfItsOwn(IdempotencyStore store) {
    if (store instanceof NearCacheStore cache) {
      return nonBlockingOfItsOwn(cache.delegate());
    }
    if (store instanceof LazilyCreatedStore lazy) {
      IdempotencyStore real = lazy.created();
      return real != null && nonBlockingOfItsOwn(real);
    }
    return store instanceof AsyncIdempotencyStore;
  }

  /**
   * Runs a blocking step that belongs to no store yet (creating a store from properties) on the
   * library's shared offload threads; fails like an adapted store's operation when they are busy.
   */
  static <T> CompletionStage<T> offload(RecordKey key, String what, Supplier<T> step) {
    return shared().run(key, what, step);
  }

  private static volatile Offloading shared;

  private static Offloading shared() {
    Offloading s = shared;
    if (s == null || s.pool.isShutdown()) {
      synchronized (AsyncStores.class) {
        s = shared;
        if (s == null || s.pool.isShutdown()) {
          s = new Offloading(null);
          shared = s;
        }
      }
    }
    return s;
  }

  /** A stage completed (normally) after {@code delay}, from the library's timer thread. */
  public static CompletionStage<Void> after(Duration delay) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    long nanos = Math.max(0, saturatedNanos(delay));
    if (nanos == 0) {
      done.complete(null);
      return done;
    }
    try {
      timer().schedule(() -> done.complete(null), nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      done.complete(null); // shutting down: a spurious early return is allowed
    }
    return done;
  }

  private static ScheduledExecutorService timer() {
    ScheduledExecutorService t = timer;
    if (t == null || t.isShutdown()) {
      synchronized (AsyncStores.class) {
        t = timer;
        if (t == null || t.isShutdown()) {
          ScheduledThreadPoolExecutor created =
              new ScheduledThreadPoolExecutor(1, LibraryThreads.named("idempotent-timer"));
          created.setRemoveOnCancelPolicy(true);
          t = created;
          timer = t;
        }
      }
    }
    return t;
  }

  /** Stops the timer and every offload executor; they start again when needed. */
  static void shutdown() {
    ScheduledExecutorService t = timer;
    if (t != null) {
      LibraryThreads.stop(t);
    }
    synchronized (ADAPTED) {
      ADAPTED.values().forEach(o -> LibraryThreads.stop(o.pool));
      ADAPTED.clear();
    }
    List<ThreadPoolExecutor> pools;
    synchronized (POOLS) {
      pools = new java.util.ArrayList<>(POOLS);
      POOLS.clear();
    }
    pools.forEach(LibraryThreads::stop);
    Offloading s = shared;
    if (s != null) {
      LibraryThreads.stop(s.pool);
    }
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? 0 : Long.MAX_VALUE / 4;
    }
  }

  /**
   * A blocking store, its operations run on a bounded executor of its own. It holds its store
   * weakly, so that the cache of adapters does not keep a dropped store alive (whoever calls it
   * holds the store, through the operation's plan).
   */
  private static final class Offloading implements AsyncIdempotencyStore {
    private final WeakReference<IdempotencyStore> storeRef;
    private final String name;
    private final ThreadPoolExecutor pool;

    Offloading(IdempotencyStore store) {
      this.storeRef = new WeakReference<>(store);
      this.name = String.valueOf(store);
      this.pool =
          new ThreadPoolExecutor(
              THREADS,
              THREADS,
              30,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(QUEUE),
              LibraryThreads.named("idempotent-offload"));
      pool.allowCoreThreadTimeOut(true);
      POOLS.add(pool);
    }

    private IdempotencyStore store() {
      IdempotencyStore s = storeRef.get();
      if (s == null) {
        throw new IllegalStateException("the store " + name + " is no longer in use");
      }
      return s;
    }

    private <T> CompletionStage<T> run(RecordKey key, String what, Supplier<T> operation) {
      CompletableFuture<T> done = new CompletableFuture<>();
      try {
        pool.execute(
            () -> {
              try {
                done.complete(operation.get());
              } catch (Throwable t) {
                done.completeExceptionally(t);
              }
            });
      } catch (RejectedExecutionException e) {
        done.completeExceptionally(
            new IdempotencyStoreException(
                "the store's "
                    + what
                    + " was not started: "
                    + QUEUE
                    + " operations already wait for its "
                    + THREADS
                    + " threads (the store is slow or down)",
                key.scope(),
                key.redactedKey(),
                e));
      }
      return done;
    }

    @Override
    public CompletionStage<ClaimResult> claimAsync(
        RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      return run(key, "claim", () -> store().claim(key, ownerToken, fingerprint, lease));
    }

    @Override
    public CompletionStage<Boolean> completeAsync(
        RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      return run(key, "complete", () -> store().complete(key, ownerToken, outcome, ttl));
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken) {
      return run(key, "release", () -> store().release(key, ownerToken));
    }

    @Override
    public CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease) {
      return run(key, "renew", () -> store().renew(key, ownerToken, lease));
    }

    @Override
    public CompletionStage<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
      return run(claims.get(0).key(), "renew", () -> store().renewAll(claims, lease));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key) {
      return run(key, "read", () -> store().read(key));
    }

    /** A timer: the blocking store's own wait would hold a thread for its whole length. */
    @Override
    public CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait) {
      return after(maxWait);
    }

    @Override
    public String toString() {
      return "offloaded " + name;
    }
  }
}
