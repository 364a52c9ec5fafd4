package dev.idempotent;

/**
 * The calling thread was interrupted before the method ran (while claiming the key or waiting for
 * its holder), so the method did not run. An interrupt is never taken for a store failure: the
 * store-failure policy does not apply (fail-open does not run the method). The thread's interrupt
 * flag is left set. HTTP 503: the request was not served (typically the server is shutting down)
 * and may be retried.
 */
public class IdempotencyInterruptedException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyInterruptedException(
      String message, String scope, String redactedKey, Throwable cause) {
    super(message + where(scope, redactedKey), scope, redactedKey, cause);
  }

  @Override
  public int httpStatus() {
    return 503;
  }
}
