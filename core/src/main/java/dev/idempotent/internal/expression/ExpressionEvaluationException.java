package dev.idempotent.internal.expression;

/**
 * {@link KeyExpression#evaluate} failed for these arguments: a null receiver without {@code ?.}, an
 * index out of range, a null index, or a getter that threw (the cause). The subclass {@link
 * ExpressionTypeException} is a mistake in the expression itself rather than in the arguments.
 */
public class ExpressionEvaluationException extends ExpressionException {
  private static final long serialVersionUID = 1L;

  ExpressionEvaluationException(String message) {
    super(message);
  }

  ExpressionEvaluationException(String message, Throwable cause) {
    super(message, cause);
  }
}
