package dev.idempotent;

/** {@code onDuplicate = REJECT} and the key has already completed. HTTP 409. */
public class DuplicateRequestException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public DuplicateRequestException(String scope, String redactedKey) {
    super(
        "this key has already been processed and duplicates are rejected"
            + where(scope, redactedKey),
        scope,
        redactedKey,
        null);
  }

  @Override
  public int httpStatus() {
    return 409;
  }
}
