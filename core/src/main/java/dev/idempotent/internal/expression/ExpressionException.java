package dev.idempotent.internal.expression;

/**
 * A key expression could not be compiled ({@link ExpressionSyntaxException}) or evaluated ({@link
 * ExpressionEvaluationException}). Messages name the failing part and its column, never argument
 * values.
 */
public class ExpressionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  protected ExpressionException(String message) {
    super(message);
  }

  protected ExpressionException(String message, Throwable cause) {
    super(message, cause);
  }
}
