package dev.idempotent.internal.expression;

import java.util.ArrayList;
import java.util.List;

/**
 * A chain {@code a + b + c} that {@link StringConcatNode} does not take (it may start with numbers that add, or
 * has more than {@link StringConcatNode#MAX_PARTS} evaluated parts). Left to right as in Java: once a String is involved the rest is appended to one
 * {@link StringBuilder} (null renders as {@code null}); before that, two boxed numbers add with Java's numeric
 * promotion. Any other pair (for example a null and a number) is concatenated as strings. Adjacent string
 * literals are joined at compile time.
 */
final class ConcatNode extends Node {
  private final Node[] parts;
  /** Whether the first part is a string literal, so the whole chain is a string from the start. */
  private final boolean stringFromStart;
  /** The string literal of each part, or null for a part that must be evaluated. */
  private final String[] constants;
  private final int capacity;

  private ConcatNode(String source, int start, int end, Node[] parts) {
    super(source, start, end);
    this.parts = parts;
    this.stringFromStart = parts[0] instanceof LiteralNode literal && literal.value() instanceof String;
    this.constants = new String[parts.length];
    int estimate = 0;
    for (int i = 0; i < parts.length; i++) {
      if (parts[i] instanceof LiteralNode literal && literal.value() instanceof String s) {
        constants[i] = s;
        estimate += s.length();
      } else {
        estimate += 16;
      }
    }
    this.capacity = estimate;
  }

  /** The chain, with adjacent string literals joined; a single part is returned as it is. */
  static Node of(String source, int start, int end, List<Node> parts) {
    // Once a string literal is reached the chain is a string, so "x" + "y" anywhere is the same as "xy".
    List<Node> joined = new ArrayList<>(parts.size());
    for (Node part : parts) {
      int last = joined.size() - 1;
      if (part instanceof LiteralNode literal
          && literal.value() instanceof String right
          && last >= 0
          && joined.get(last) instanceof LiteralNode previous
          && previous.value() instanceof String left) {
        joined.set(last, new LiteralNode(source, start, end, left + right));
      } else {
        joined.add(part);
      }
    }
    if (joined.size() == 1 && joined.get(0) instanceof LiteralNode literal) {
      return new LiteralNode(source, start, end, literal.value());
    }
    Node concat = StringConcatNode.tryCreate(source, start, end, joined);
    if (concat != null) {
      return concat;
    }
    return new ConcatNode(source, start, end, joined.toArray(new Node[0]));
  }

  @Override
  Object evaluate(Object[] arguments) {
    if (stringFromStart) {
      return concatenate(arguments);
    }
    return evaluateMixed(arguments);
  }

  /** The common case, a chain that starts with a string literal: one builder, no checks. */
  private String concatenate(Object[] arguments) {
    Node[] parts = this.parts;
    String[] constants = this.constants;
    StringBuilder builder = new StringBuilder(capacity);
    for (int i = 0; i < parts.length; i++) {
      String constant = constants[i];
      if (constant != null) {
        builder.append(constant);
      } else {
        append(builder, part(i, arguments));
      }
    }
    return builder.toString();
  }

  /** Part {@code i}'s value, checked to have a text of its own. */
  private Object part(int i, Object[] arguments) {
    return KeyText.checked(parts[i].evaluate(arguments), parts[i]);
  }

  private Object evaluateMixed(Object[] arguments) {
    Node[] parts = this.parts;
    Object accumulated = part(0, arguments);
    int next = 1;
    StringBuilder builder = null;
    while (next < parts.length) {
      if (accumulated instanceof String s) {
        builder = new StringBuilder(capacity).append(s);
        break;
      }
      Object right = part(next++, arguments);
      Object sum = right instanceof String ? null : add(accumulated, right);
      if (sum == null) {
        builder = new StringBuilder(capacity);
        append(builder, accumulated);
        append(builder, right);
        break;
      }
      accumulated = sum;
    }
    if (builder == null) {
      return accumulated;
    }
    for (int i = next; i < parts.length; i++) {
      append(builder, part(i, arguments));
    }
    return builder.toString();
  }

  private static void append(StringBuilder builder, Object value) {
    if (value instanceof String s) {
      builder.append(s);
    } else if (value instanceof Integer i) {
      builder.append(i.intValue());
    } else if (value instanceof Long l) {
      builder.append(l.longValue());
    } else {
      builder.append(value);
    }
  }

  /** Java's {@code +} on two boxed numbers, or null when the pair does not add. */
  private static Object add(Object left, Object right) {
    if (!isAddable(left) || !isAddable(right)) {
      return null;
    }
    Number a = (Number) left;
    Number b = (Number) right;
    if (a instanceof Double || b instanceof Double) {
      return a.doubleValue() + b.doubleValue();
    }
    if (a instanceof Float || b instanceof Float) {
      return a.floatValue() + b.floatValue();
    }
    if (a instanceof Long || b instanceof Long) {
      return a.longValue() + b.longValue();
    }
    return a.intValue() + b.intValue();
  }

  private static boolean isAddable(Object value) {
    return value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte
        || value instanceof Double
        || value instanceof Float;
  }
}
