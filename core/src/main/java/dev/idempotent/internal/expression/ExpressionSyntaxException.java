package dev.idempotent.internal.expression;

/**
 * {@link KeyExpression#compile} rejected the source: a syntax error ("expected ... at column N in
 * '...'"), an unknown parameter name or a parameter index the method does not have.
 */
public final class ExpressionSyntaxException extends ExpressionException {
  private static final long serialVersionUID = 1L;

  private final int column;

  ExpressionSyntaxException(String message, int column) {
    super(message);
    this.column = column;
  }

  /** The 1-based column in the source where the problem was found. */
  public int column() {
    return column;
  }
}
