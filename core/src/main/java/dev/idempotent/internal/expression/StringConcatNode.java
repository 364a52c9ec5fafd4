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
 * A chain that is a string from its first {@code +} (one of its first two parts is a string literal), built like
 * javac's own {@code +}: a {@link StringConcatFactory} handle with the literals in its recipe, exact-sized, no
 * intermediate builder.
 *
 * <p>On the first evaluation the handle is specialized to the runtime types seen ({@code String}, {@code long},
 * {@code int}, else {@code Object}), so a boxed number is appended without an intermediate string. A cheap type
 * guard checks every later call; after a mismatch the node switches, once, to a handle that takes
 * {@code Object}s. Up to {@link #MAX_PARTS} evaluated parts; longer chains use {@link ConcatNode}.
 */
final class StringConcatNode extends Node {
  static final int MAX_PARTS = 6;

  private static final byte OBJECT = 0;
  private static final byte STRING = 1;
  private static final byte LONG = 2;
  private static final byte INT = 3;

  private static final MethodType INVOKED;

  static {
    Class<?>[] objects = new Class<?>[MAX_PARTS];
    Arrays.fill(objects, Object.class);
    INVOKED = MethodType.methodType(String.class, objects);
  }

  private final Node[] parts;
  private final String recipe;
  private final Object[] constants;
  private final Specialization generic;
  /** Racy on purpose: {@link Specialization} is immutable; at worst a thread specializes again. */
  private Specialization current;

  /** A handle adapted to {@link #INVOKED} and the argument kinds it was built for. */
  private static final class Specialization {
    final MethodHandle handle;
    final byte[] kinds;

    Specialization(MethodHandle handle, byte[] kinds) {
      this.handle = handle;
      this.kinds = kinds;
    }
  }

  private StringConcatNode(String source, int start, int end, Node[] parts, String recipe, Object[] constants)
      throws StringConcatException {
    super(source, start, end);
    this.parts = parts;
    this.recipe = recipe;
    this.constants = constants;
    this.generic = specialize(new byte[parts.length]);
  }

  /** The node for {@code parts}, or null when the chain does not qualify. */
  static Node tryCreate(String source, int start, int end, List<Node> chain) {
    if (chain.size() < 2 || !(isStringLiteral(chain.get(0)) || isStringLiteral(chain.get(1)))) {
      return null;
    }
    List<Node> evaluated = new ArrayList<>();
    List<Object> constants = new ArrayList<>();
    StringBuilder recipe = new StringBuilder();
    for (Node part : chain) {
      if (part instanceof LiteralNode literal) {
        recipe.append('\u0002');
        constants.add(String.valueOf(literal.value()));
      } else {
        recipe.append('\u0001');
        evaluated.add(part);
      }
    }
    if (evaluated.isEmpty() || evaluated.size() > MAX_PARTS) {
      return null;
    }
    try {
      return new StringConcatNode(
          source, start, end, evaluated.toArray(new Node[0]), recipe.toString(), constants.toArray());
    } catch (StringConcatException | RuntimeException e) {
      return null;
    }
  }

  private static boolean isStringLiteral(Node node) {
    return node instanceof LiteralNode literal && literal.value() instanceof String;
  }

  private Specialization specialize(byte[] kinds) throws StringConcatException {
    Class<?>[] types = new Class<?>[kinds.length];
    for (int i = 0; i < kinds.length; i++) {
      types[i] = switch (kinds[i]) {
        case STRING -> String.class;
        case LONG -> long.class;
        case INT -> int.class;
        default -> Object.class;
      };
    }
    MethodHandle concat =
        StringConcatFactory.makeConcatWithConstants(
                MethodHandles.lookup(), "concat", MethodType.methodType(String.class, types), recipe, constants)
            .dynamicInvoker();
    Class<?>[] unused = new Class<?>[MAX_PARTS - kinds.length];
    Arrays.fill(unused, Object.class);
    MethodHandle padded = MethodHandles.dropArguments(concat, kinds.length, unused);
    return new Specialization(padded.asType(INVOKED), kinds);
  }

  @Override
  Object evaluate(Object[] arguments) {
    Node[] parts = this.parts;
    int n = parts.length;
    Object v0 = KeyText.checked(parts[0].evaluate(arguments), parts[0]);
    Object v1 = n > 1 ? KeyText.checked(parts[1].evaluate(arguments), parts[1]) : null;
    Object v2 = n > 2 ? KeyText.checked(parts[2].evaluate(arguments), parts[2]) : null;
    Object v3 = n > 3 ? KeyText.checked(parts[3].evaluate(arguments), parts[3]) : null;
    Object v4 = n > 4 ? KeyText.checked(parts[4].evaluate(arguments), parts[4]) : null;
    Object v5 = n > 5 ? KeyText.checked(parts[5].evaluate(arguments), parts[5]) : null;
    Specialization s = current;
    if (s == null || !fits(s.kinds, v0, v1, v2, v3, v4, v5)) {
      s = respecialize(s, v0, v1, v2, v3, v4, v5);
    }
    try {
      return (String) s.handle.invokeExact(v0, v1, v2, v3, v4, v5);
    } catch (RuntimeException e) {
      throw new ExpressionEvaluationException("rendering '" + text + "'" + at(column) + " threw " + e, e);
    } catch (Error e) {
      throw e;
    } catch (Throwable e) {
      throw new ExpressionEvaluationException("rendering '" + text + "'" + at(column) + " threw " + e, e);
    }
  }

  private static boolean fits(byte[] kinds, Object v0, Object v1, Object v2, Object v3, Object v4, Object v5) {
    int n = kinds.length;
    return fits(kinds[0], v0)
        && (n < 2 || fits(kinds[1], v1))
        && (n < 3 || fits(kinds[2], v2))
        && (n < 4 || fits(kinds[3], v3))
        && (n < 5 || fits(kinds[4], v4))
        && (n < 6 || fits(kinds[5], v5));
  }

  private static boolean fits(byte kind, Object value) {
    return switch (kind) {
      case STRING -> value == null || value instanceof String;
      case LONG -> value instanceof Long;
      case INT -> value instanceof Integer;
      default -> true;
    };
  }

  private Specialization respecialize(Specialization previous, Object... values) {
    Specialization next;
    if (previous != null) {
      next = generic; // the types vary: stop guessing
    } else {
      byte[] kinds = new byte[parts.length];
      for (int i = 0; i < kinds.length; i++) {
        Object value = values[i];
        kinds[i] = value instanceof String ? STRING
            : value instanceof Long ? LONG
            : value instanceof Integer ? INT
            : OBJECT;
      }
      try {
        next = specialize(kinds);
      } catch (StringConcatException | RuntimeException e) {
        next = generic;
      }
    }
    current = next;
    return next;
  }

  /** Whether the node now uses the handle that takes Objects; for tests. */
  boolean isGeneric() {
    return current == generic;
  }
}
