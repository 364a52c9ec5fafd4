package dev.idempotent.internal.expression;

/**
 * One compiled part of an expression; evaluating it reads the method arguments and nothing else.
 */
abstract class Node {
  /** The whole expression source, for messages. */
  final String source;

  /** This part's own source text, for messages. */
  final String text;

  /** 1-based column where this part starts. */
  final int column;

  Node(String source, int start, int end) {
    this.source = source;
    this.text = source.substring(start, end).strip();
    this.column = start + 1;
  }

  abstract Object evaluate(Object[] arguments);

  final String at(int column) {
    return " at column " + column + " in '" + source + "'";
  }
}
