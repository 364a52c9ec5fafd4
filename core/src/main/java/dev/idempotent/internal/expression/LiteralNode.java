package dev.idempotent.internal.expression;

/** A string or integer literal. */
final class LiteralNode extends Node {
  private final Object value;

  LiteralNode(String source, int start, int end, Object value) {
    super(source, start, end);
    this.value = value;
  }

  @Override
  Object evaluate(Object[] arguments) {
    return value;
  }

  Object value() {
    return value;
  }
}
