package dev.idempotent;

import java.time.Duration;

/**
 * A repeat of a key blocked after its first call failed ambiguously ({@link
 * OnAmbiguousFailure#BLOCK}): answered like a key in progress (HTTP 409) until the record's ttl
 * ends or an operator deletes it with {@link Idempotency#delete}. {@link #leaseRemaining()} is the
 * time the record has left.
 */
public class IdempotencyBlockedException extends IdempotencyInProgressException {
  private static final long serialVersionUID = 1L;

  private final String failureType;

  public IdempotencyBlockedException(
      String scope, String redactedKey, Duration remaining, String failureType) {
    super(
        "the key is blocked: its first call failed ("
            + failureType
            + ") in a way that may have had its effect; it stays blocked for "
            + remaining.toMillis()
            + " ms, or until an operator deletes the record"
            + where(scope, redactedKey),
        scope,
        redactedKey,
        remaining);
    this.failureType = failureType;
  }

  /** The class name of the first call's exception. */
  public String failureType() {
    return failureType;
  }
}
