package dev.idempotent.memory;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the evictions of a {@link CompletionOrder}. A completion that takes the order past its
 * maximum size queues one run on the executor, unless one is queued already: the oldest records are
 * cold in memory, and removing them on the completing thread cost a quarter of a completion. A
 * completion past the slack evicts the oldest record itself; an executor that refuses the run
 * leaves the eviction to the completing thread as well.
 */
final class Evictions {
  private static final Logger log = LoggerFactory.getLogger(Evictions.class);

  private final CompletionOrder order;
  private final Executor executor;

  /** Removes an evicted record from the cache (only that record: not a newer one of its key). */
  private final Consumer<MemoryRecord> removal;

  /** Whether a run is queued or running on {@link #executor}. */
  private final AtomicBoolean scheduled = new AtomicBoolean();

  Evictions(CompletionOrder order, Executor executor, Consumer<MemoryRecord> removal) {
    this.order = order;
    this.executor = executor;
    this.removal = removal;
  }

  /** What a completion does once its record is in the order, outside the cache's lock. */
  void afterCompletion(CompletionOrder.Admission admission) {
    switch (admission) {
      case EVICT_NOW -> evictOne();
      case EVICTION_DUE -> schedule();
      case WITHIN_BOUND -> {}
    }
  }

  /** Evicts the oldest records until the order holds at most its maximum size, on this thread. */
  void evictOverflow() {
    MemoryRecord oldest;
    while ((oldest = order.pollOverflow()) != null) {
      removal.accept(oldest);
    }
  }

  private void evictOne() {
    MemoryRecord oldest = order.pollOverflow();
    if (oldest != null) {
      removal.accept(oldest);
    }
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      try {
        executor.execute(this::run);
      } catch (RuntimeException e) {
        scheduled.set(false);
        log.debug("Eviction could not be queued; evicting on the completing thread", e);
        evictOverflow();
      }
    }
  }

  /**
   * One queued run; runs again when completions made evictions due while it was finishing (they saw
   * it scheduled and queued nothing).
   */
  private void run() {
    do {
      try {
        evictOverflow();
      } finally {
        scheduled.set(false);
      }
    } while (order.isOverMaximum() && scheduled.compareAndSet(false, true));
  }
}
