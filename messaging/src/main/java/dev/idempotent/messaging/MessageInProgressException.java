package dev.idempotent.messaging;

import dev.idempotent.IdempotencyException;
import java.time.Duration;

/**
 * A delivery found its key held by another delivery still running and waited the bound: the message
 * goes back to the broker for a later delivery. Not an error: the adapters' error handling neither
 * logs it as one nor dead-letters the message.
 */
public class MessageInProgressException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final Duration waited;

  public MessageInProgressException(String scope, String redactedKey, Duration waited) {
    super(
        "another delivery of the same message is still in progress after a wait of "
            + waited.toMillis()
            + " ms: the message goes back to the broker for a later delivery"
            + (scope == null
                ? ""
                : " [" + scope + (redactedKey == null ? "" : " " + redactedKey) + "]"),
        scope,
        redactedKey,
        null);
    this.waited = waited;
  }

  /** How long this delivery waited for the other one. */
  public Duration waited() {
    return waited;
  }

  @Override
  public int httpStatus() {
    return 409;
  }
}
