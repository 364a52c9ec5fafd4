package dev.idempotent.internal.expression;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.StringConcatException;
import java.lang.invoke.StringConcatFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code a + b + c}, left to right as in Java: two boxed numbers add with Java's numeric promotion
 * until a String is involved; from then on every part is appended (null renders as {@code null}).
 * Any other pair (for example a null and a number) is concatenated as strings. Adjacent string
 * literals are joined at compile time. Every evaluated part must have a text of its own ({@link
 * KeyText#checked}).
 *
 * <p>A chain that is a string from its first {@code +} (one of its first two parts is a string
 * literal) with at most {@value #MAX_HANDLE_PARTS} evaluated parts, the usual key, is built as
 * javac builds {@code +}: one {@link StringConcatFactory} handle with the literals in its recipe,
 * exact-sized, without an intermediate builder. Any other chain uses a {@link StringBuilder}.
 */
final class ConcatNode extends Node {
  static final int MAX_HANDLE_PARTS = 6;
  private static final MethodType HANDLE_TYPE;

  static {
    Class<?>[] objects = new Class<?>[MAX_HANDLE_PARTS];
    Arrays.fill(objects, Object.class);
    HANDLE_TYPE = MethodType.methodType(String.class, objects);
  }

  private final Node[] parts;
  private final int capacity;

  /** The evaluated parts the handle takes, or null without a handle. */
  private final Node[] evaluated;

  /** {@code (Object x 6)String}, unused trailing arguments dropped; or null. */
  private final MethodHandle concat;

  private ConcatNode(String source, int start, int end, Node[] parts) {
    super(source, start, end);
    this.parts = parts;
    int estimate = 0;
    for (Node part : parts) {
      estimate += isStringLiteral(part) ? ((String) ((LiteralNode) part).value()).length() : 16;
    }
    this.capacity = estimate;
    MethodHandle handle = null;
    List<Node> evaluatedParts = new ArrayList<>();
    if (isStringLiteral(parts[0]) || isStringLiteral(parts[1])) {
      StringBuilder recipe = new StringBuilder();
      List<Object> constants = new ArrayList<>();
      for (Node part : parts) {
        if (part instanceof LiteralNode literal) {
          recipe.append('\u0002');
          constants.add(String.valueOf(literal.value()));
        } else {
          recipe.append('\u0001');
          evaluatedParts.add(part);
        }
      }
      if (!evaluatedParts.isEmpty() && evaluatedParts.size() <= MAX_HANDLE_PARTS) {
        handle = handle(recipe.toString(), constants.toArray(), evaluatedParts.size());
      }
    }
    this.concat = handle;
    this.evaluated = handle == null ? null : evaluatedParts.toArray(new Node[0]);
  }

  private static MethodHandle handle(String recipe, Object[] constants, int arity) {
    Class<?>[] types = new Class<?>[arity];
    Arrays.fill(types, Object.class);
    try {
      MethodHandle concat =
          StringConcatFactory.makeConcatWithConstants(
                  MethodHandles.lookup(),
                  "concat",
                  MethodType.methodType(String.class, types),
                  recipe,
                  constants)
              .dynamicInvoker();
      Class<?>[] unused = new Class<?>[MAX_HANDLE_PARTS - arity];
      Arrays.fill(unused, Object.class);
      return MethodHandles.dropArguments(concat, arity, unused).asType(HANDLE_TYPE);
    } catch (StringConcatException | RuntimeException e) {
      return null;
    }
  }

  private static boolean isStringLiteral(Node node) {
    return node instanceof LiteralNode literal && literal.value() instanceof String;
  }

  /** The chain, with adjacent string literals joined; a single literal is returned as it is. */
  static Node of(String source, int start, int end, List<Node> parts) {
    // Once a string literal is reached the chain is a string, so "x" + "y" anywhere is the same as
    // "xy".
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
    return new ConcatNode(source, start, end, joined.toArray(new Node[0]));
  }

  @Override
  Object evaluate(Object[] arguments) {
    if (concat != null) {
      return concatenate(arguments);
    }
    Node[] parts = this.parts;
    Object value = part(parts[0], arguments);
    StringBuilder text = null;
    for (int i = 1; i < parts.length; i++) {
      Object right = part(parts[i], arguments);
      if (text == null) {
        Object sum = value instanceof String || right instanceof String ? null : add(value, right);
        if (sum != null) {
          value = sum;
          continue;
        }
        text = new StringBuilder(capacity);
        append(text, value);
      }
      append(text, right);
    }
    return text == null ? value : text.toString();
  }

  private String concatenate(Object[] arguments) {
    Node[] parts = evaluated;
    int n = parts.length;
    Object v0 = part(parts[0], arguments);
    Object v1 = n > 1 ? part(parts[1], arguments) : null;
    Object v2 = n > 2 ? part(parts[2], arguments) : null;
    Object v3 = n > 3 ? part(parts[3], arguments) : null;
    Object v4 = n > 4 ? part(parts[4], arguments) : null;
    Object v5 = n > 5 ? part(parts[5], arguments) : null;
    try {
      return (String) concat.invokeExact(v0, v1, v2, v3, v4, v5);
    } catch (Error e) {
      throw e;
    } catch (Throwable e) {
      throw rendering(e);
    }
  }

  private ExpressionEvaluationException rendering(Throwable e) {
    return new ExpressionEvaluationException(
        "rendering '" + text + "'" + at(column) + " threw " + e, e);
  }

  /** A part's value, checked to have a text of its own. */
  private static Object part(Node part, Object[] arguments) {
    return KeyText.checked(part.evaluate(arguments), part);
  }

  private void append(StringBuilder text, Object value) {
    if (value instanceof String s) {
      text.append(s);
    } else if (value instanceof Long l) {
      text.append(l.longValue());
    } else if (value instanceof Integer i) {
      text.append(i.intValue());
    } else {
      try {
        text.append(value);
      } catch (RuntimeException e) {
        throw rendering(e);
      }
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
