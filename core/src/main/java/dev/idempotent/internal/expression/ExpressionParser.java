package dev.idempotent.internal.expression;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Recursive descent over the source characters, building the node tree once.
 *
 * <pre>
 * expression := chain END
 * chain      := postfix ('+' postfix)*
 * postfix    := primary ( ('.' | '?.') NAME ['(' ')'] | ('[' | '?.[') chain ']' )*
 * primary    := '#' NAME | STRING | INTEGER | '(' chain ')'
 * </pre>
 */
final class ExpressionParser {
  private final String source;
  private final String[] parameterNames;
  private final int length;

  /** Deeper trees could overflow the stack when compiled or evaluated; no key needs them. */
  static final int MAX_NESTING = 256;

  static final int MAX_CHAIN = 1000;

  private int pos;
  private int requiredArguments;
  private int nesting;

  ExpressionParser(String source, String[] parameterNames) {
    this.source = source;
    this.parameterNames = parameterNames;
    this.length = source.length();
  }

  /** How many arguments the expression reads by position at least (highest index + 1). */
  int requiredArguments() {
    return requiredArguments;
  }

  Node parse() {
    skipWhitespace();
    if (pos == length) {
      throw expected(pos, "an expression", "write for example #order.id or 'order:' + #p0");
    }
    Node root = chain();
    skipWhitespace();
    if (pos < length) {
      throw expected(pos, "+ or the end of the expression", trailingHint(source.charAt(pos)));
    }
    return root;
  }

  private Node chain() {
    int start = pos;
    if (++nesting > MAX_NESTING) {
      throw new ExpressionSyntaxException(
          "expression nested too deeply at column "
              + (pos + 1)
              + " in '"
              + source
              + "'; at most "
              + MAX_NESTING
              + " levels of ( and [",
          pos + 1);
    }
    List<Node> parts = new ArrayList<>();
    parts.add(postfix());
    while (true) {
      skipWhitespace();
      if (pos < length && source.charAt(pos) == '+') {
        pos++;
        skipWhitespace();
        parts.add(postfix());
      } else {
        break;
      }
    }
    nesting--;
    return parts.size() == 1 ? parts.get(0) : ConcatNode.of(source, start, pos, parts);
  }

  private Node postfix() {
    int start = pos;
    Node node = primary();
    for (int steps = 0; ; steps++) {
      if (steps == MAX_CHAIN) {
        throw new ExpressionSyntaxException(
            "expression chain too long at column "
                + (pos + 1)
                + " in '"
                + source
                + "'; at most "
                + MAX_CHAIN
                + " steps of . and [",
            pos + 1);
      }
      int save = pos;
      skipWhitespace();
      int operator = pos;
      if (startsWith("?.")) {
        pos += 2;
        skipWhitespace();
        if (pos < length && source.charAt(pos) == '[') {
          node = index(start, node, true, operator);
        } else {
          node = member(start, node, true, operator, "?.");
        }
      } else if (startsWith(".")) {
        pos++;
        skipWhitespace();
        node = member(start, node, false, operator, ".");
      } else if (startsWith("[")) {
        node = index(start, node, false, operator);
      } else {
        pos = save;
        return node;
      }
    }
  }

  private Node member(
      int start, Node receiver, boolean nullSafe, int operator, String operatorText) {
    if (pos >= length || !Character.isJavaIdentifierStart(source.charAt(pos))) {
      throw expected(
          pos,
          "a property or method name after '" + operatorText + "'",
          pos < length && source.charAt(pos) == '[' ? "write [ without the dot" : null);
    }
    String name = identifier();
    int afterName = pos;
    skipWhitespace();
    boolean methodCall = false;
    if (pos < length && source.charAt(pos) == '(') {
      pos++;
      skipWhitespace();
      if (pos >= length || source.charAt(pos) != ')') {
        throw expected(pos, "')'", "methods are called without arguments");
      }
      pos++;
      methodCall = true;
    } else {
      pos = afterName;
    }
    return new MemberNode(source, start, pos, receiver, name, methodCall, nullSafe, operator + 1);
  }

  private Node index(int start, Node receiver, boolean nullSafe, int operator) {
    int open = pos;
    pos++; // [
    skipWhitespace();
    Node key = chain();
    skipWhitespace();
    if (pos >= length || source.charAt(pos) != ']') {
      throw expected(pos, "']' to close the '[' at column " + (open + 1), null);
    }
    pos++;
    if (receiver instanceof ArgumentsArrayNode
        && !nullSafe
        && key instanceof LiteralNode literal
        && literal.value() instanceof Number number) {
      long i = number.longValue();
      if (i < 0 || i >= parameterNames.length) {
        throw new ExpressionSyntaxException(
            "index "
                + i
                + " of #args is out of range at column "
                + (open + 1)
                + " in '"
                + source
                + "'; "
                + parameterCount(),
            open + 1);
      }
      return argument(start, pos, (int) i);
    }
    return new IndexNode(source, start, pos, receiver, key, nullSafe, operator + 1);
  }

  private Node primary() {
    int start = pos;
    if (pos >= length) {
      throw expected(pos, "a #parameter, a 'string', an integer or (", null);
    }
    char c = source.charAt(pos);
    if (c == '#') {
      return parameter();
    }
    if (c == '\'' || c == '"') {
      return string();
    }
    if (c >= '0' && c <= '9') {
      return integer();
    }
    if (c == '(') {
      pos++;
      skipWhitespace();
      Node inner = chain();
      skipWhitespace();
      if (pos >= length || source.charAt(pos) != ')') {
        throw expected(pos, "')' to close the '(' at column " + (start + 1), null);
      }
      pos++;
      return inner;
    }
    String hint = null;
    if (Character.isJavaIdentifierStart(c)) {
      int end = start;
      while (end < length && Character.isJavaIdentifierPart(source.charAt(end))) {
        end++;
      }
      String word = source.substring(start, end);
      int next = end;
      while (next < length && Character.isWhitespace(source.charAt(next))) {
        next++;
      }
      if (word.equals("new")) {
        hint = "'new' is not supported: an expression can only read the arguments";
      } else if (word.equals("T") && next < length && source.charAt(next) == '(') {
        hint = "type references T(...) and static calls are not supported";
      } else {
        hint = "parameters start with #: write #" + word;
      }
    } else if (c == '-') {
      hint = "negative numbers are not supported";
    } else if (c == '@' || c == '&') {
      hint = "bean references are not supported";
    }
    throw expected(pos, "a #parameter, a 'string', an integer or (", hint);
  }

  private Node parameter() {
    int start = pos;
    pos++; // #
    if (pos >= length || !Character.isJavaIdentifierStart(source.charAt(pos))) {
      throw expected(pos, "a parameter name after #", "write #name, #p0 or #args[0]");
    }
    String name = identifier();
    for (int i = 0; i < parameterNames.length; i++) {
      if (name.equals(parameterNames[i])) {
        return argument(start, pos, i);
      }
    }
    if (name.equals("args")) {
      return new ArgumentsArrayNode(source, start, pos);
    }
    if (name.length() > 1
        && (name.charAt(0) == 'p' || name.charAt(0) == 'a')
        && digitsFrom(name, 1)) {
      long index = parseIndex(name.substring(1));
      if (index >= parameterNames.length) {
        throw new ExpressionSyntaxException(
            "parameter '#"
                + name
                + "' is out of range at column "
                + (start + 1)
                + " in '"
                + source
                + "'; "
                + parameterCount(),
            start + 1);
      }
      return argument(start, pos, (int) index);
    }
    throw new ExpressionSyntaxException(
        "unknown parameter '#"
            + name
            + "' at column "
            + (start + 1)
            + " in '"
            + source
            + "'; "
            + available()
            + "; parameter names need the javac -parameters flag, otherwise use #p0 (or #a0,"
            + " #args[0])",
        start + 1);
  }

  private Node argument(int start, int end, int index) {
    requiredArguments = Math.max(requiredArguments, index + 1);
    return new ArgumentNode(source, start, end, index);
  }

  private String available() {
    StringJoiner names = new StringJoiner(", ");
    for (String name : parameterNames) {
      if (name != null) {
        names.add("#" + name);
      }
    }
    if (parameterNames.length == 0) {
      return "the method has no parameters";
    }
    return "available: "
        + (names.length() == 0 ? "no names" : names.toString())
        + " and by position #p0"
        + (parameterNames.length > 1 ? " to #p" + (parameterNames.length - 1) : "");
  }

  private String parameterCount() {
    int n = parameterNames.length;
    if (n == 0) {
      return "the method has no parameters";
    }
    return "the method has "
        + n
        + (n == 1 ? " parameter, #p0" : " parameters, #p0 to #p" + (n - 1));
  }

  private Node string() {
    int start = pos;
    char quote = source.charAt(pos++);
    StringBuilder value = new StringBuilder();
    while (true) {
      if (pos >= length) {
        throw expected(
            pos,
            "a closing " + quote + " for the string that starts at column " + (start + 1),
            null);
      }
      char c = source.charAt(pos);
      if (c == quote) {
        if (pos + 1 < length && source.charAt(pos + 1) == quote) {
          value.append(quote);
          pos += 2;
          continue;
        }
        pos++;
        return new LiteralNode(source, start, pos, value.toString());
      }
      if (c == '\\') {
        value.append(escape());
        continue;
      }
      value.append(c);
      pos++;
    }
  }

  private char escape() {
    int at = pos;
    pos++; // backslash
    if (pos < length) {
      char c = source.charAt(pos++);
      switch (c) {
        case '\\':
        case '\'':
        case '"':
          return c;
        case 'n':
          return '\n';
        case 't':
          return '\t';
        case 'r':
          return '\r';
        case 'b':
          return '\b';
        case 'f':
          return '\f';
        case 'u':
          if (pos + 4 <= length) {
            try {
              char decoded = (char) Integer.parseInt(source.substring(pos, pos + 4), 16);
              pos += 4;
              return decoded;
            } catch (NumberFormatException e) {
              // reported below
            }
          }
          break;
        default:
          break;
      }
    }
    throw expected(
        at,
        "an escape \\\\, \\', \\\", \\n, \\t, \\r, \\b, \\f or \\uXXXX",
        "write \\\\ for a backslash");
  }

  private Node integer() {
    int start = pos;
    while (pos < length && source.charAt(pos) >= '0' && source.charAt(pos) <= '9') {
      pos++;
    }
    String digits = source.substring(start, pos);
    long value;
    try {
      value = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw expected(start, "an integer up to " + Long.MAX_VALUE, null);
    }
    // not a conditional expression: that would promote both branches to long
    if (value <= Integer.MAX_VALUE) {
      return new LiteralNode(source, start, pos, Integer.valueOf((int) value));
    }
    return new LiteralNode(source, start, pos, Long.valueOf(value));
  }

  private String identifier() {
    int start = pos;
    pos++;
    while (pos < length && Character.isJavaIdentifierPart(source.charAt(pos))) {
      pos++;
    }
    return source.substring(start, pos);
  }

  private static boolean digitsFrom(String text, int from) {
    for (int i = from; i < text.length(); i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static long parseIndex(String digits) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  private static String trailingHint(char c) {
    return switch (c) {
      case '=' -> "assignment and comparison are not supported";
      case '-', '*', '/', '%' -> "only + is supported";
      case '?' -> "only ?. is supported";
      case ')' -> "this ) has no matching (";
      case ']' -> "this ] has no matching [";
      case '(' -> "only methods can be called, as .name()";
      default -> null;
    };
  }

  private boolean startsWith(String text) {
    return source.startsWith(text, pos);
  }

  private void skipWhitespace() {
    while (pos < length && Character.isWhitespace(source.charAt(pos))) {
      pos++;
    }
  }

  private ExpressionSyntaxException expected(int at, String what, String hint) {
    return new ExpressionSyntaxException(
        "expected "
            + what
            + " at column "
            + (at + 1)
            + " in '"
            + source
            + "'"
            + (hint == null ? "" : "; " + hint),
        at + 1);
  }
}
