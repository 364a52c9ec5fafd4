package dev.idempotent;

/**
 * The key is completed, but its recorded outcome cannot be read back: the codec refused the stored
 * bytes (a class outside the allow-list or on its deny-list, a size, depth or count limit, a value
 * that is not of the method's result type, a failure whose class is not in {@code recordFailures})
 * or they are corrupt), or the store found something under the record's name that is not one of its
 * records (the Redis store: another Redis type, or a string that is not a record of its format).
 * The method did not run again, since running it could repeat its effect; the record stays until
 * its ttl ends or it is deleted. Such a record was written by another version of the application,
 * or by someone with write access to the store: look at it before deleting it. HTTP 500.
 */
public class IdempotencyOutcomeException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyOutcomeException(
      String message, String scope, String redactedKey, Throwable cause) {
    super(message + where(scope, redactedKey), scope, redactedKey, cause);
  }

  @Override
  public int httpStatus() {
    return 500;
  }
}
