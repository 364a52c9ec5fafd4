package dev.idempotent.benchmarks;

import dev.idempotent.Idempotent;

/**
 * The woven side of every store benchmark: plain {@code @Idempotent} methods, compiled and woven by
 * {@code aspectj-maven-plugin} exactly as in a user's build. Both run {@link Receipt#issue}, the
 * same body the hand-written baselines run.
 */
public class OrderService {
  /** Scope of {@link #submit}. */
  public static final String SUBMIT_SCOPE = "bench.submit";

  /** Scope of {@link #submitRetained}. */
  public static final String RETAINED_SCOPE = "bench.retained";

  /**
   * Fresh-key benchmarks: a short ttl keeps a shared backend (Redis, a table) from growing without
   * bound.
   */
  @Idempotent(scope = SUBMIT_SCOPE, key = "#orderId", ttl = "30s")
  public Receipt submit(String orderId, long amountCents) {
    return Receipt.issue(orderId, amountCents);
  }

  /** Replay benchmarks: recorded once in the set-up, then repeated; the ttl outlives any run. */
  @Idempotent(scope = RETAINED_SCOPE, key = "#orderId", ttl = "1h")
  public Receipt submitRetained(String orderId, long amountCents) {
    return Receipt.issue(orderId, amountCents);
  }

  /** Scope of {@link #submitChecked}. */
  public static final String CHECKED_SCOPE = "bench.checked";

  /** Scope of {@link #submitRetainedChecked}. */
  public static final String CHECKED_RETAINED_SCOPE = "bench.checked-retained";

  /**
   * {@link #submit} with a payload check of all arguments ({@code payload = "*"}), as an endpoint
   * that refuses a reused key with another request: the Redis benchmarks, beside the floor that
   * does the same client work.
   */
  @Idempotent(scope = CHECKED_SCOPE, key = "#orderId", ttl = "30s", payload = "*")
  public Receipt submitChecked(String orderId, long amountCents) {
    return Receipt.issue(orderId, amountCents);
  }

  /** {@link #submitRetained} with a payload check of all arguments. */
  @Idempotent(scope = CHECKED_RETAINED_SCOPE, key = "#orderId", ttl = "1h", payload = "*")
  public Receipt submitRetainedChecked(String orderId, long amountCents) {
    return Receipt.issue(orderId, amountCents);
  }
}
