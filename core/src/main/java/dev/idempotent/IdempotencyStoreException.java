package dev.idempotent;

/**
 * The store failed or timed out and the store-failure policy is fail-closed: the method did not
 * run. Or the method ran but its outcome could not be recorded where it belongs, the caller's
 * transaction (the cause is then a {@link dev.idempotent.spi.OutcomeNotRecordedException}): roll
 * that transaction back. HTTP 503.
 *
 * <p>A store may throw it too, with a message that names no whole key (the executor then applies
 * the store-failure policy as for any store failure, and may show that message in its own).
 */
public class IdempotencyStoreException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyStoreException(
      String message, String scope, String redactedKey, Throwable cause) {
    super(message + where(scope, redactedKey), scope, redactedKey, cause);
  }

  @Override
  public int httpStatus() {
    return 503;
  }
}
