package dev.idempotent.benchmarks;

import dev.idempotent.Idempotent;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The woven methods {@link LatencyRun} times, beside {@link OrderService}'s and {@link
 * ReactiveOrderService}'s: one that holds its key for as long as a latch stays closed, so that
 * repeats of a held key meet a claim in progress.
 */
public class LatencyService {
  /** Scope of {@link #hold}. */
  public static final String HOLD_SCOPE = "bench.hold";

  /**
   * Counts {@code started} down, then runs until {@code release} opens (at most ten minutes),
   * holding {@code orderId}'s claim the whole time; a repeat of the key while it runs is refused at
   * once ({@code onInProgress} is {@code REJECT} by default).
   */
  @Idempotent(scope = HOLD_SCOPE, key = "#orderId", ttl = "30s")
  public Receipt hold(String orderId, CountDownLatch started, CountDownLatch release)
      throws InterruptedException {
    started.countDown();
    if (!release.await(10, TimeUnit.MINUTES)) {
      throw new IllegalStateException("a held key was never released: " + orderId);
    }
    return Receipt.issue(orderId, BenchmarkSettings.AMOUNT);
  }
}
