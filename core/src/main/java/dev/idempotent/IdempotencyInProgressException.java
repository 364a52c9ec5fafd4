package dev.idempotent;

import java.time.Duration;

/**
 * The key is held by a call that is still running (on REJECT, or after WAIT timed out). HTTP 409.
 */
public class IdempotencyInProgressException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final Duration leaseRemaining;

  public IdempotencyInProgressException(
      String scope, String redactedKey, Duration leaseRemaining, String detail) {
    super(
        "another call with the same key is still in progress"
            + (detail == null ? "" : " (" + detail + ")")
            + "; its lease ends in "
            + leaseRemaining.toMillis()
            + " ms: retry later"
            + where(scope, redactedKey),
        scope,
        redactedKey,
        null);
    this.leaseRemaining = leaseRemaining;
  }

  /** For a subclass with a message of its own. */
  protected IdempotencyInProgressException(
      String message, String scope, String redactedKey, Duration leaseRemaining) {
    super(message, scope, redactedKey, null);
    this.leaseRemaining = leaseRemaining;
  }

  /**
   * How long until the holder's lease ends if it is not renewed: a reasonable {@code Retry-After}.
   */
  public Duration leaseRemaining() {
    return leaseRemaining;
  }

  @Override
  public int httpStatus() {
    return 409;
  }
}
