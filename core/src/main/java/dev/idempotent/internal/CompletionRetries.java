package dev.idempotent.internal;

import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records an outcome whose first {@code complete} failed (store down or timed out) after the method
 * ran. The caller already has its result; this keeps trying in the background, scheduled on one
 * daemon thread for the JVM, with a doubling pause (100 ms up to 2 s), until the claim's lease
 * would have ended. Each attempt is the call's own completion round trip ({@link Call#complete}): a
 * blocking call's on the retry thread, a deferred call's on the store's non-blocking face. After
 * that another caller may hold the key, and {@code complete} is owner-checked anyway, so a late
 * attempt can never overwrite someone else's record. Without it, an outage during completion means
 * the key runs again once its lease ends.
 */
final class CompletionRetries {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final long FIRST_PAUSE_MILLIS = 100;
  private static final long MAX_PAUSE_MILLIS = 2_000;
  private static final CompletionRetries SHARED = new CompletionRetries();

  private volatile ScheduledExecutorService scheduler;

  static CompletionRetries shared() {
    return SHARED;
  }

  /** Outcome of the retries: recorded, refused (fenced) or given up. */
  enum Result {
    RECORDED,
    FENCED,
    GAVE_UP
  }

  /**
   * Retries {@code attempt} (a completion round trip: true when recorded, false when fenced) until
   * it answers or {@code lease} has passed, then hands the result to {@code done}.
   */
  void retry(
      RecordKey key,
      Duration lease,
      Supplier<CompletionStage<Boolean>> attempt,
      Consumer<Result> done) {
    long giveUpAt = System.nanoTime() + lease.toNanos();
    schedule(() -> attempt(key, attempt, giveUpAt, FIRST_PAUSE_MILLIS, done), FIRST_PAUSE_MILLIS);
  }

  private void attempt(
      RecordKey key,
      Supplier<CompletionStage<Boolean>> attempt,
      long giveUpAt,
      long pause,
      Consumer<Result> done) {
    CompletionStage<Boolean> answer;
    try {
      answer = attempt.get();
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (recorded, error) -> {
          Result result;
          if (error == null) {
            result = recorded ? Result.RECORDED : Result.FENCED;
          } else {
            long next = Math.min(pause * 2, MAX_PAUSE_MILLIS);
            if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(next) < giveUpAt) {
              schedule(() -> attempt(key, attempt, giveUpAt, next, done), next);
              return;
            }
            LOG.error(
                "gave up recording the outcome of {} after its lease: a repeat will run the method"
                    + " again: {}",
                key,
                Protocol.describe(Protocol.unwrap(error)));
            result = Result.GAVE_UP;
          }
          try {
            done.accept(result);
          } catch (RuntimeException e) {
            LOG.warn("completion callback failed", e);
          }
        });
  }

  /**
   * Stops the retry thread; outcomes still waiting to be recorded are dropped (logged), so their
   * keys run again once their leases end. The next {@link #retry} starts the thread again.
   */
  synchronized void shutdown() {
    ScheduledExecutorService s = scheduler;
    scheduler = null;
    int dropped = LibraryThreads.stop(s).size();
    if (dropped > 0) {
      LOG.warn(
          "stopped with {} outcomes not yet recorded: their keys run again once their leases end",
          dropped);
    }
  }

  private void schedule(Runnable task, long delayMillis) {
    ScheduledExecutorService s = scheduler;
    if (s == null) {
      synchronized (this) {
        s = scheduler;
        if (s == null) {
          s =
              Executors.newSingleThreadScheduledExecutor(
                  LibraryThreads.named("idempotent-completion-retry"));
          scheduler = s;
        }
      }
    }
    try {
      s.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.warn(
          "an outcome was not recorded because the library is shutting down"
              + " (Idempotency.shutdown()): its key runs again once its lease ends");
    }
  }
}
