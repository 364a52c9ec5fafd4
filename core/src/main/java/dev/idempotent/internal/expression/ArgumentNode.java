package dev.idempotent.internal.expression;

/** {@code #name}, {@code #p0}, {@code #a0} or {@code #args[0]}: a direct array load. */
final class ArgumentNode extends Node {
  private final int index;

  ArgumentNode(String source, int start, int end, int index) {
    super(source, start, end);
    this.index = index;
  }

  @Override
  Object evaluate(Object[] arguments) {
    return arguments[index];
  }
}
