package dev.idempotent;

/**
 * The key could not be computed for these arguments: null or blank, or the expression failed. HTTP
 * 400.
 */
public class IdempotencyKeyException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyKeyException(String message, String scope, Throwable cause) {
    super(message + where(scope, null), scope, null, cause);
  }

  @Override
  public int httpStatus() {
    return 400;
  }
}
