package dev.idempotent.internal.expression;

/** {@code #args}: the argument array itself. */
final class ArgumentsArrayNode extends Node {
  ArgumentsArrayNode(String source, int start, int end) {
    super(source, start, end);
  }

  @Override
  Object evaluate(Object[] arguments) {
    return arguments;
  }
}
