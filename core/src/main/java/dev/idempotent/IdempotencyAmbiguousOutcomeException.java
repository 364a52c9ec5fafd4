package dev.idempotent;

/**
 * A repeat of a key whose first call failed in a way that may already have had its effect, recorded
 * as such ({@link OnAmbiguousFailure#RECORD}): the work did not run again, and its outcome is
 * unknown. {@link #failureType()} names the class of the first call's exception (its message is not
 * kept: it may carry data). HTTP 500.
 */
public class IdempotencyAmbiguousOutcomeException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final String failureType;

  public IdempotencyAmbiguousOutcomeException(
      String scope, String redactedKey, String failureType) {
    super(
        "the first call with this key failed ("
            + failureType
            + ") in a way that may have had its effect, so it is not run again and its outcome is"
            + " unknown: check the state it would have changed"
            + where(scope, redactedKey),
        scope,
        redactedKey,
        null);
    this.failureType = failureType;
  }

  /** The class name of the first call's exception. */
  public String failureType() {
    return failureType;
  }

  @Override
  public int httpStatus() {
    return 500;
  }
}
