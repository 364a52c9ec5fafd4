package dev.idempotent;

/**
 * A mistake in the setup: a bad annotation attribute (expression syntax, duration, unknown store or
 * parameter name), a result type the codec cannot encode, or no store available. HTTP 500.
 */
public class IdempotencyConfigurationException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  public IdempotencyConfigurationException(String message) {
    super(message, null, null, null);
  }

  public IdempotencyConfigurationException(String message, Throwable cause) {
    super(message, null, null, cause);
  }

  @Override
  public int httpStatus() {
    return 500;
  }
}
