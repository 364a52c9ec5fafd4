package dev.idempotent.benchmarks;

import dev.idempotent.Idempotent;
import reactor.core.publisher.Mono;

/**
 * The woven side of the reactive Redis benchmarks: {@code @Idempotent} methods that return a {@code
 * Mono}, whose claim, completion and replay go through the store's non-blocking face. Each
 * subscription is one call; the body is the one every baseline runs ({@link Receipt#issue}).
 */
public class ReactiveOrderService {
  /** Scope of {@link #submit}. */
  public static final String SUBMIT_SCOPE = "bench.mono";

  /** Scope of {@link #submitRetained}. */
  public static final String RETAINED_SCOPE = "bench.mono-retained";

  /** Fresh-key benchmarks: payload checked, a short ttl keeps Redis bounded. */
  @Idempotent(scope = SUBMIT_SCOPE, key = "#orderId", ttl = "30s", payload = "*")
  public Mono<Receipt> submit(String orderId, long amountCents) {
    return Mono.fromSupplier(() -> Receipt.issue(orderId, amountCents));
  }

  /** Replay benchmarks: recorded once in the set-up, then repeated; the ttl outlives any run. */
  @Idempotent(scope = RETAINED_SCOPE, key = "#orderId", ttl = "1h", payload = "*")
  public Mono<Receipt> submitRetained(String orderId, long amountCents) {
    return Mono.fromSupplier(() -> Receipt.issue(orderId, amountCents));
  }
}
