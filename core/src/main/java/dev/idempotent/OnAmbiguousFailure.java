package dev.idempotent;

/**
 * What a call leaves behind when its work fails in a way that may already have had its effect: an
 * exception that is not one of the operation's {@code recordFailures} (or one that cannot be
 * recorded), a 5xx answer of a web request. A timeout after the payment went through is the classic
 * case: the failure says nothing about whether the effect happened.
 */
public enum OnAmbiguousFailure {
  /**
   * Release the key, so that a retry runs the work again (the default). Right when a failed attempt
   * has no effect, or when the effect is idempotent itself; a retry may repeat an effect that did
   * happen.
   */
  RELEASE,
  /**
   * Record a generic ambiguous-failure outcome for the ttl, as payment APIs do: every repeat gets
   * {@link IdempotencyAmbiguousOutcomeException} (a web request: the same 5xx response again) and
   * the work never runs twice. Right when a repeated effect is worse than a failed request: the
   * client learns that the outcome is unknown and someone reconciles.
   */
  RECORD,
  /**
   * Complete the record with that outcome and answer every repeat with {@link
   * IdempotencyBlockedException} (not an in-progress answer: no retry helps; HTTP 409 with a
   * problem type of its own, a message to dead-lettering) until the ttl ends or an operator deletes
   * the record ({@link Idempotency#delete}). Right when an operator must look at the failure before
   * the key may run again.
   */
  BLOCK
}
