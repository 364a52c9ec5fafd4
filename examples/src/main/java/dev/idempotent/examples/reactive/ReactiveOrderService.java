package dev.idempotent.examples.reactive;

import dev.idempotent.Idempotent;
import dev.idempotent.examples.OrderBook;
import dev.idempotent.examples.OrderReceipt;
import dev.idempotent.examples.OrderRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The order service of the WebFlux example: its work arrives later, as a {@code Mono} or a {@code
 * Flux}. Calling a method assembles; each subscription is one attempt, so a subscriber that retries
 * gets the recorded outcome. Each method counts its real executions per key.
 */
public class ReactiveOrderService {
  private final OrderBook book = new OrderBook();
  private final Map<String, AtomicLong> executions = new ConcurrentHashMap<>();
  private volatile Duration work = Duration.ZERO;

  /**
   * Makes each order take this long (without blocking a thread), so duplicates arrive meanwhile.
   */
  public void setWork(Duration work) {
    this.work = work;
  }

  // spotless:off
  // docs/reactive.md: the example's service (begin)
  @Idempotent(key = "#idempotencyKey", payload = "#request", scope = "orders.place")
  public Mono<OrderReceipt> placeOrder(String idempotencyKey, OrderRequest request) {
    return Mono.fromSupplier(() -> place(idempotencyKey, request)).delayElement(work);
  }

  @Idempotent(key = "#orderId", scope = "orders.labels")
  public Flux<String> printLabels(String orderId, int parcels) {
    return Flux.defer(
        () -> {
          count("labels:" + orderId);
          return Flux.range(1, parcels).map(i -> orderId + " parcel " + i + "/" + parcels);
        });
  }
  // docs/reactive.md: the example's service (end)
  // spotless:on

  private OrderReceipt place(String key, OrderRequest request) {
    count("order:" + key);
    return book.place(request, Duration.ZERO);
  }

  private void count(String key) {
    executions.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
  }

  /** How many times the work for {@code key} really ran ({@code order:K} or {@code labels:O}). */
  public long executions(String key) {
    AtomicLong n = executions.get(key);
    return n == null ? 0 : n.get();
  }
}
