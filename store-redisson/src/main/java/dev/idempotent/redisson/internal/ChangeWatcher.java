package dev.idempotent.redisson.internal;

import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RFuture;
import org.redisson.api.RShardedTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The waits for a record to change ({@code awaitChange}), without a thread parked per wait. A wait:
 *
 * <ol>
 *   <li>subscribes to the record's sharded channel ({@code SSUBSCRIBE <record name>#changed}, on
 *       the shard that holds the record);
 *   <li>then runs {@link RecordScript#WATCH}, which flags the claim as waited for (so that its
 *       completion, release or delete publishes on the channel) and answers how long its lease has
 *       left; a key that holds no claim (free, completed, not a record) ends the wait at once,
 *       since it may have changed before the subscription;
 *   <li>ends on the first message, when the lease ends, or after {@code maxWait}, whichever comes
 *       first; then unsubscribes without waiting for Redis to confirm it.
 * </ol>
 *
 * The order matters: a change after the flag was set is published to a subscription that exists,
 * and a change before it is seen by the watch step. Messages complete the wait on Redisson's
 * threads; the lease end and {@code maxWait} on one timer thread of this watcher's own, started at
 * the first wait and stopped by {@link #close()} (which ends the waits still pending: an early end
 * is allowed).
 */
public final class ChangeWatcher implements AutoCloseable {
  private final RedissonClient redisson;
  private final ScriptRunner scripts;
  private final Object timerLock = new Object();
  private ScheduledThreadPoolExecutor timer;
  private boolean closed;

  public ChangeWatcher(RedissonClient redisson, ScriptRunner scripts) {
    this.redisson = redisson;
    this.scripts = scripts;
  }

  /**
   * A wait for the record {@code name} of {@code key}: completes normally when the record may have
   * changed or {@code maxWait} has passed, exceptionally with a {@link RedactedFailure} when the
   * subscription or the watch step fails. Completing or cancelling the returned stage ends the wait
   * and its subscription.
   */
  public CompletableFuture<Void> await(RecordKey key, String name, Duration maxWait) {
    CompletableFuture<Void> changed = new CompletableFuture<>();
    long maxWaitNanos = Math.max(0, maxWait.toNanos());
    if (maxWaitNanos == 0) {
      changed.complete(null);
      return changed;
    }
    long deadline = System.nanoTime() + maxWaitNanos;
    endAfter(changed, maxWaitNanos);
    RShardedTopic topic =
        redisson.getShardedTopic(RecordNames.channelOf(name), StringCodec.INSTANCE);
    RFuture<Integer> subscription;
    try {
      subscription =
          topic.addListenerAsync(String.class, (channel, message) -> changed.complete(null));
    } catch (RuntimeException e) {
      changed.completeExceptionally(failure("SSUBSCRIBE", key, name, e));
      return changed;
    }
    subscription.whenComplete(
        (listenerId, error) -> {
          if (error != null) {
            changed.completeExceptionally(failure("SSUBSCRIBE", key, name, error));
            return;
          }
          changed.whenComplete((ignored, end) -> topic.removeListenerAsync(listenerId));
          if (!changed.isDone()) {
            watch(changed, key, name, deadline);
          }
        });
    return changed;
  }

  private void watch(CompletableFuture<Void> changed, RecordKey key, String name, long deadline) {
    scripts
        .<Long, Long>runAsync(RecordScript.WATCH, key, name, List.of(name), pttl -> pttl)
        .whenComplete(
            (pttl, error) -> {
              if (error != null) {
                changed.completeExceptionally(error);
              } else if (pttl == -2) {
                changed.complete(null); // nothing held the key: it may have changed already
              } else if (pttl >= 0) {
                long leaseLeft = TimeUnit.MILLISECONDS.toNanos(pttl + 1);
                if (leaseLeft < deadline - System.nanoTime()) {
                  endAfter(changed, leaseLeft);
                }
              }
            });
  }

  /** Completes {@code changed} after {@code nanos} on the timer (at once when closed). */
  private void endAfter(CompletableFuture<Void> changed, long nanos) {
    ScheduledThreadPoolExecutor t = timer();
    if (t == null) {
      changed.complete(null);
      return;
    }
    try {
      var task = t.schedule(() -> changed.complete(null), nanos, TimeUnit.NANOSECONDS);
      changed.whenComplete((ignored, error) -> task.cancel(false));
    } catch (RejectedExecutionException e) {
      changed.complete(null);
    }
  }

  private ScheduledThreadPoolExecutor timer() {
    synchronized (timerLock) {
      if (timer == null && !closed) {
        ScheduledThreadPoolExecutor t =
            new ScheduledThreadPoolExecutor(
                1,
                r -> {
                  Thread thread = new Thread(r, "idempotent-redis-wait-timer");
                  thread.setDaemon(true);
                  return thread;
                });
        t.setRemoveOnCancelPolicy(true);
        timer = t;
      }
      return timer;
    }
  }

  private static RuntimeException failure(
      String operation, RecordKey key, String name, Throwable error) {
    return RedactedFailure.of(
        operation + " to the record's change channel", key, RecordNames.sent(key, name), error);
  }

  /** Stops the timer and ends every wait still pending. */
  @Override
  public void close() {
    ScheduledThreadPoolExecutor t;
    synchronized (timerLock) {
      closed = true;
      t = timer;
      timer = null;
    }
    if (t != null) {
      for (Runnable pending : t.shutdownNow()) {
        pending.run();
      }
    }
  }
}
