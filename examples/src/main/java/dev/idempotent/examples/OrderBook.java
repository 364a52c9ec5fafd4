package dev.idempotent.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The orders the web demo created, in memory. It is not idempotent by itself: every {@link #place}
 * is a new order, so {@link #count()} shows how often the idempotency layer in front of it let a
 * submit through.
 */
public final class OrderBook {
  private final AtomicLong orderNumbers = new AtomicLong();
  private final Map<String, OrderReceipt> byId = new ConcurrentHashMap<>();

  /**
   * Places a new order; {@code work} is how long placing it takes (to let duplicates arrive
   * meanwhile).
   */
  public OrderReceipt place(OrderRequest request, Duration work) {
    long n = orderNumbers.incrementAndGet();
    OrderReceipt receipt =
        new OrderReceipt("ord-" + n, request.customerId(), request.sku(), request.quantity(), n);
    byId.put(receipt.orderId(), receipt);
    if (!work.isZero()) {
      try {
        Thread.sleep(work.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return receipt;
  }

  /** The order with this id, if this book placed it. */
  public Optional<OrderReceipt> find(String orderId) {
    return Optional.ofNullable(byId.get(orderId));
  }

  /** How many orders were placed. */
  public long count() {
    return orderNumbers.get();
  }

  /** Every order placed, oldest first. */
  public List<OrderReceipt> all() {
    List<OrderReceipt> all = new ArrayList<>(byId.values());
    all.sort((a, b) -> Long.compare(a.orderNumber(), b.orderNumber()));
    return all;
  }
}
