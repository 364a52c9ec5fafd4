package dev.idempotent.benchmarks;

import java.io.Serializable;

/**
 * The result of the benchmarked method: small, serializable, the kind of value an order endpoint
 * returns.
 *
 * @param orderId the order the receipt is for
 * @param amountCents the amount charged
 * @param currency the currency of the amount
 */
public record Receipt(String orderId, long amountCents, String currency) implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The method body shared by the woven service and every baseline, so both sides do the same work.
   */
  public static Receipt issue(String orderId, long amountCents) {
    return new Receipt(orderId, amountCents, "EUR");
  }
}
