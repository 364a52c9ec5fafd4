package dev.idempotent.internal.expression;

import java.util.Objects;

/**
 * A compiled key expression: a small, read-only, SpEL-like language over the arguments of a method.
 *
 * <p>{@code #name} (a parameter by name; needs javac {@code -parameters}), {@code #p0} / {@code
 * #a0} (by position), {@code #args} (the argument array) and {@code #args[0]}; {@code .name} reads
 * a property (getter {@code getName()}, {@code isName()}, record accessor {@code name()}, public
 * field {@code name}, in that order), {@code .name()} calls a getter, a record accessor or one of
 * the read-only methods {@link ReadOnlyCalls} lists; {@code ?.} and {@code ?.[} give null for a
 * null receiver; {@code [0]} indexes arrays and Lists, {@code ['k']} / {@code [#p1]} Maps; string
 * literals in {@code '...'} or {@code "..."} (backslash escapes, doubled quote), integer literals,
 * parentheses, and {@code +}, which concatenates as in Java (two numbers add).
 *
 * <p>Compiled once into a tree of small nodes; evaluation parses nothing and resolves each property
 * once per runtime class. Instances are immutable apart from those caches and safe to share between
 * threads.
 */
public final class KeyExpression {
  private static final Object[] NO_ARGUMENTS = new Object[0];

  private final String source;
  private final Node root;
  private final int requiredArguments;

  private KeyExpression(String source, Node root, int requiredArguments) {
    this.source = source;
    this.root = root;
    this.requiredArguments = requiredArguments;
  }

  /**
   * Parses and compiles {@code source} for a method with these parameter names (entries may be null
   * or {@code arg0}-style when the class was compiled without {@code -parameters}).
   *
   * @throws ExpressionSyntaxException with the column, for a syntax error, an unknown parameter
   *     name or a parameter index the method does not have
   */
  public static KeyExpression compile(String source, String[] parameterNames) {
    Objects.requireNonNull(source, "source: pass the key expression text, for example #order.id");
    Objects.requireNonNull(
        parameterNames, "parameterNames: pass an empty array for a method without parameters");
    ExpressionParser parser = new ExpressionParser(source, parameterNames.clone());
    Node root = parser.parse();
    return new KeyExpression(source, root, parser.requiredArguments());
  }

  /**
   * Evaluates the expression on one call's arguments. May return null (a null argument, {@code
   * ?.}).
   *
   * @throws ExpressionEvaluationException naming the failing part and its column
   */
  public Object evaluate(Object[] arguments) {
    Object[] args = arguments == null ? NO_ARGUMENTS : arguments;
    if (args.length < requiredArguments) {
      throw new ExpressionEvaluationException(
          "'" + source + "' reads " + requiredArguments + " argument(s) but got " + args.length);
    }
    return root.evaluate(args);
  }

  /**
   * Evaluates the expression on one call's arguments and renders the value as key text (dates by
   * instant); null when the value is null.
   *
   * @throws ExpressionTypeException when the value's text would be its identity, or the expression
   *     does not fit the arguments' classes
   * @throws ExpressionEvaluationException for a null on the path, an index out of range or a getter
   *     that threw
   */
  public String evaluateKey(Object[] arguments) {
    return KeyText.render(evaluate(arguments), root);
  }

  /** The expression as written. */
  public String source() {
    return source;
  }

  @Override
  public String toString() {
    return "KeyExpression[" + source + "]";
  }
}
