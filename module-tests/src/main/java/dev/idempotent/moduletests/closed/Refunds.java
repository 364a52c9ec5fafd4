package dev.idempotent.moduletests.closed;

import dev.idempotent.Idempotent;

/** A woven service in a package the module does not open to {@code dev.idempotent.core}. */
public class Refunds {
  /** A refund request. */
  public record Refund(String id) {}

  /** Refunds once per id, if the key expression can read {@code Refund.id()}. */
  @Idempotent(key = "#refund.id")
  public String refund(Refund refund) {
    return "refunded-" + refund.id();
  }
}
