package dev.idempotent.internal.expression;

/**
 * The expression does not fit the runtime class of a value it reads: a property or method the class
 * does not have (a typo such as {@code #request.ordreId}), one that is not accessible, a call the
 * read-only language does not allow ({@code getClass()}, {@code poll()}, ...), an index on
 * something that cannot be indexed, or a value whose text is its identity ({@code Order@3b764bce}).
 * A mistake in the code, not in the arguments: the same expression fails for every call with values
 * of that class.
 */
public final class ExpressionTypeException extends ExpressionEvaluationException {
  private static final long serialVersionUID = 1L;

  ExpressionTypeException(String message) {
    super(message);
  }
}
