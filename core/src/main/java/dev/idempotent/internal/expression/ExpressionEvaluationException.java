package dev.idempotent.internal.expression;

/**
 * {@link KeyExpression#evaluate} failed for these arguments: a null receiver without {@code ?.}, a property or
 * method the runtime class does not have, an index out of range, or a getter that threw (the cause).
 */
public final class ExpressionEvaluationException extends ExpressionException {
  private static final long serialVersionUID = 1L;

  ExpressionEvaluationException(String message) {
    super(message);
  }

  ExpressionEvaluationException(String message, Throwable cause) {
    super(message, cause);
  }
}
