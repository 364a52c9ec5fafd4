package dev.idempotent;

import java.time.Duration;

/**
 * A repeat of a key blocked after its first call failed ambiguously ({@link
 * OnAmbiguousFailure#BLOCK}). No call of this key will ever finish it: this is not a key in
 * progress, and retrying does not help. It stays blocked until the record's ttl ends or an operator
 * deletes it with {@link Idempotency#delete}; {@link #blockedFor()} is the time the record has
 * left. HTTP 409, with a problem type of its own and no {@code Retry-After}; a message consumer
 * hands the message to its dead-letter or error handling as a final failure.
 */
public class IdempotencyBlockedException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final String failureType;
  private final Duration blockedFor;

  public IdempotencyBlockedException(
      String scope, String redactedKey, Duration blockedFor, String failureType) {
    super(
        "the key is blocked: its first call failed ("
            + failureType
            + ") in a way that may have had its effect, so its outcome is unknown and it is not run"
            + " again; retrying does not help: check the state the call would have changed, then"
            + " have an operator delete the record (Idempotency.delete) or wait "
            + blockedFor.toMillis()
            + " ms for its ttl to end"
            + where(scope, redactedKey),
        scope,
        redactedKey,
        null);
    this.failureType = failureType;
    this.blockedFor = blockedFor;
  }

  /** The class name of the first call's exception. */
  public String failureType() {
    return failureType;
  }

  /** How long the record has left: the key is blocked until then, unless it is deleted. */
  public Duration blockedFor() {
    return blockedFor;
  }

  @Override
  public int httpStatus() {
    return 409;
  }
}
