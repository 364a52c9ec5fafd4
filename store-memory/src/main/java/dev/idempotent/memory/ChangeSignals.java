package dev.idempotent.memory;

import dev.idempotent.spi.RecordKey;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The waiters of the memory store, per key: a blocking waiter parks on a latch, an asynchronous one
 * holds a stage completed by the store's executor, never by a parked thread. A change of the key
 * (complete, release, delete) wakes all of them; a waiter that nothing wakes ends at its {@code
 * maxWait} or when the holder's lease ends, whichever comes first. An entry exists only while
 * someone waits on that key.
 *
 * <p>Registering and {@link #signal signalling} pair through a full fence: a waiter registers, then
 * reads the record ({@link HoldTime}); a change writes the record, then looks for waiters. Either
 * the waiter's read sees the change, or the change sees the waiter.
 */
final class ChangeSignals {
  private static final CompletionStage<Void> DONE = CompletableFuture.completedStage(null);

  /** How long the holder of a key may still hold it. */
  @FunctionalInterface
  interface HoldTime {
    /** Nanoseconds until the claim on {@code key} ends; zero or less when no claim holds it. */
    long nanosLeft(RecordKey key);
  }

  private final ConcurrentHashMap<RecordKey, Signal> signals = new ConcurrentHashMap<>();
  private final HoldTime holdTime;

  /** Completes the asynchronous waiters' stages, woken or timed out. */
  private final Executor executor;

  ChangeSignals(HoldTime holdTime, Executor executor) {
    this.holdTime = holdTime;
    this.executor = executor;
  }

  /**
   * Blocks until {@code key} changes, the holder's lease ends or {@code waitNanos} have passed;
   * returns at once when no claim holds the key.
   */
  void await(RecordKey key, long waitNanos) throws InterruptedException {
    if (waitNanos <= 0) {
      return;
    }
    Signal signal = register(key, false);
    try {
      long held = holdTime.nanosLeft(key);
      if (held > 0) {
        signal.latch.await(Math.min(waitNanos, held), TimeUnit.NANOSECONDS);
      }
    } finally {
      unregister(key, signal);
    }
  }

  /**
   * A stage that completes when {@code key} changes, the holder's lease ends or {@code waitNanos}
   * have passed, on the executor (or at once when no claim holds the key); never exceptionally.
   */
  CompletionStage<Void> awaitAsync(RecordKey key, long waitNanos) {
    if (waitNanos <= 0) {
      return DONE;
    }
    Signal signal = register(key, true);
    long held = holdTime.nanosLeft(key);
    if (held <= 0) {
      unregister(key, signal);
      return DONE;
    }
    CompletableFuture<Void> woken = new CompletableFuture<>();
    signal.changed.thenRun(() -> woken.complete(null));
    CompletableFuture.delayedExecutor(Math.min(waitNanos, held), TimeUnit.NANOSECONDS, executor)
        .execute(() -> woken.complete(null));
    // the caller's stage completes once the waiter is out of the registry
    return woken
        .whenComplete((ignored, failure) -> unregister(key, signal))
        .minimalCompletionStage();
  }

  /** Wakes the waiters of {@code key}, after a change written before this call. */
  void signal(RecordKey key) {
    // Pairs with the fence in register: either the waiter's read sees the change, or this sees it.
    VarHandle.fullFence();
    if (!signals.isEmpty()) {
      Signal signal = signals.remove(key);
      if (signal != null) {
        signal.fire(executor);
      }
    }
  }

  /** Wakes every waiter (the store is closing). */
  void signalAll() {
    signals.forEach(
        (key, signal) -> {
          if (signals.remove(key, signal)) {
            signal.fire(executor);
          }
        });
  }

  /** The number of keys someone waits on. */
  int waitedKeyCount() {
    return signals.size();
  }

  private Signal register(RecordKey key, boolean async) {
    Signal signal =
        signals.compute(
            key,
            (k, s) -> {
              Signal registered = s == null ? new Signal() : s;
              registered.waiters++;
              if (async && registered.changed == null) {
                registered.changed = new CompletableFuture<>();
              }
              return registered;
            });
    VarHandle.fullFence();
    return signal;
  }

  private void unregister(RecordKey key, Signal signal) {
    signals.computeIfPresent(key, (k, s) -> s == signal && --s.waiters == 0 ? null : s);
  }

  /** Wakes the waiters of one key once; replaced by a fresh one for later waiters. */
  private static final class Signal {
    final CountDownLatch latch = new CountDownLatch(1);

    /**
     * Completed when the key changes, for asynchronous waiters; created by the first of them. Set
     * inside the map's per-key lock, read after the signal left the map.
     */
    volatile CompletableFuture<Void> changed;

    /** Guarded by the signals map's per-key locking (only changed inside compute). */
    int waiters;

    void fire(Executor executor) {
      latch.countDown();
      CompletableFuture<Void> async = changed;
      if (async != null) {
        try {
          executor.execute(() -> async.complete(null));
        } catch (RejectedExecutionException e) {
          async.complete(null);
        }
      }
    }
  }
}
