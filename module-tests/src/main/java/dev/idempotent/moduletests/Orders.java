package dev.idempotent.moduletests;

import dev.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/** A user's service with a woven method. */
public class Orders {
  private final AtomicInteger placed = new AtomicInteger();

  /** Places {@code order} once per order id. */
  @Idempotent(key = "#order.id")
  public String place(Order order) {
    return "receipt-" + order.id() + "-" + placed.incrementAndGet();
  }

  /** How many times {@link #place} ran. */
  public int placed() {
    return placed.get();
  }
}
