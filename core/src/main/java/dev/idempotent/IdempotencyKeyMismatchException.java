package dev.idempotent;

/** The key was used before with a different payload (fingerprint). HTTP 422. */
public class IdempotencyKeyMismatchException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyKeyMismatchException(String scope, String redactedKey) {
    super(
        "this key was already used with a different payload: use a new key for a different request"
            + where(scope, redactedKey),
        scope,
        redactedKey,
        null);
  }

  @Override
  public int httpStatus() {
    return 422;
  }
}
