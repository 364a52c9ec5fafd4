package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyExpressionSyntaxErrorTest {
  private static final String[] ORDER_USER = {"order", "user"};

  private static ExpressionSyntaxException failure(String source, String... names) {
    try {
      KeyExpression.compile(source, names);
    } catch (ExpressionSyntaxException e) {
      return e;
    }
    throw new AssertionError("expected a syntax error for " + source);
  }

  private static void assertColumn(String source, int column, String... phrases) {
    ExpressionSyntaxException e = failure(source, ORDER_USER);
    assertThat(e.column()).as(e.getMessage()).isEqualTo(column);
    assertThat(e.getMessage()).contains("at column " + column + " in '" + source + "'");
    for (String phrase : phrases) {
      assertThat(e.getMessage()).contains(phrase);
    }
  }

  @Test
  void emptyAndBlank() {
    assertColumn("", 1, "expected an expression");
    assertColumn("   ", 4, "expected an expression");
  }

  @Test
  void danglingOperators() {
    assertColumn("#order.", 8, "expected a property or method name after '.'");
    assertColumn("#order?.", 9, "expected a property or method name after '?.'");
    assertColumn("#order +", 9, "expected a #parameter, a 'string', an integer or (");
    assertColumn("#order + + 'a'", 10, "expected a #parameter");
    assertColumn("#", 2, "expected a parameter name after #");
    assertColumn("# order", 2, "expected a parameter name after #");
  }

  @Test
  void trailingInput() {
    assertColumn("#order #user", 8, "expected + or the end of the expression");
    assertColumn(
        "#order = 1", 8, "expected + or the end", "assignment and comparison are not supported");
    assertColumn("#order == #user", 8, "assignment and comparison are not supported");
    assertColumn("#order - 1", 8, "only + is supported");
    assertColumn("#order ?: 'x'", 8, "only ?. is supported");
    assertColumn("#order)", 7, "has no matching (");
    assertColumn("#order.id(", 11, "expected ')'", "methods are called without arguments");
  }

  @Test
  void unbalancedBrackets() {
    assertColumn("(#order", 8, "expected ')' to close the '(' at column 1");
    assertColumn("#order[0", 9, "expected ']' to close the '[' at column 7");
    assertColumn("#order[]", 8, "expected a #parameter");
    assertColumn(
        "#order.[0]", 8, "expected a property or method name after '.'", "write [ without the dot");
  }

  @Test
  void methodArgumentsAreRejected() {
    assertColumn("#order.get(1)", 12, "expected ')'", "methods are called without arguments");
    assertColumn("#order.get(#user)", 12, "methods are called without arguments");
  }

  @Test
  void unsupportedLanguageFeatures() {
    assertColumn(
        "T(java.lang.Math).random()",
        1,
        "type references T(...) and static calls are not supported");
    assertColumn("new java.util.Date()", 1, "'new' is not supported");
    assertColumn("@bean.key", 1, "bean references are not supported");
    assertColumn("order.id", 1, "parameters start with #: write #order");
    assertColumn("null", 1, "write #null");
    assertColumn("-1", 1, "negative numbers are not supported");
    assertColumn("#order.id ? 'a' : 'b'", 11, "only ?. is supported");
    assertColumn("1.5", 3, "expected a property or method name after '.'");
  }

  @Test
  void unterminatedStrings() {
    assertColumn("'abc", 5, "expected a closing ' for the string that starts at column 1");
    assertColumn(
        "#order + \"abc", 14, "expected a closing \" for the string that starts at column 10");
    assertColumn("'it''s", 7, "expected a closing '");
  }

  @Test
  void badEscapes() {
    assertColumn("'a\\qb'", 3, "expected an escape", "write \\\\ for a backslash");
    assertColumn("'\\u00g1'", 2, "expected an escape");
    assertColumn("'\\", 2, "expected an escape");
  }

  @Test
  void nestingAndChainLengthAreBounded() {
    String deep = "(".repeat(300) + "#order" + ")".repeat(300);
    ExpressionSyntaxException nested = failure(deep, ORDER_USER);
    assertThat(nested.getMessage()).startsWith("expression nested too deeply at column 257");
    assertThat(nested.column()).isEqualTo(257);
    String longChain = "#order" + ".next".repeat(1001);
    ExpressionSyntaxException chain = failure(longChain, ORDER_USER);
    assertThat(chain.getMessage())
        .startsWith("expression chain too long at column " + (6 + 5 * 1000 + 1));
    KeyExpression.compile(
        "(".repeat(255) + "#order" + ")".repeat(255) + ".next".repeat(999), ORDER_USER);
  }

  @Test
  void integerTooLarge() {
    assertColumn("99999999999999999999", 1, "expected an integer up to 9223372036854775807");
  }

  @Test
  void unknownParameterNamesTheAvailableOnes() {
    ExpressionSyntaxException e = failure("'k' + #ordr.id", ORDER_USER);
    assertThat(e.column()).isEqualTo(7);
    assertThat(e.getMessage())
        .startsWith("unknown parameter '#ordr' at column 7 in ''k' + #ordr.id'")
        .contains("available: #order, #user and by position #p0 to #p1")
        .contains("-parameters")
        .contains("use #p0");
  }

  @Test
  void unknownParameterWithoutNames() {
    ExpressionSyntaxException e = failure("#order", null, null);
    assertThat(e.getMessage())
        .contains("available: no names and by position #p0 to #p1", "-parameters");
    ExpressionSyntaxException synthetic = failure("#order", "arg0");
    assertThat(synthetic.getMessage())
        .contains("available: #arg0 and by position #p0;", "-parameters");
    ExpressionSyntaxException none = failure("#order");
    assertThat(none.getMessage()).contains("the method has no parameters");
  }

  @ParameterizedTest
  @CsvSource({"#p2, 1", "#a9, 1", "'x' + #p99999999999, 7", "#args[2], 6", "#args[ 5 ], 6"})
  void positionOutOfRange(String source, int column) {
    ExpressionSyntaxException e = failure(source, ORDER_USER);
    assertThat(e.column()).isEqualTo(column);
    assertThat(e.getMessage())
        .contains("out of range at column " + column)
        .contains("the method has 2 parameters, #p0 to #p1");
  }

  @Test
  void positionOnMethodWithoutParameters() {
    assertThat(failure("#p0").getMessage()).contains("the method has no parameters");
  }

  @Test
  void syntaxErrorsAreExpressionExceptions() {
    AbstractThrowableAssert<?, ?> thrown =
        assertThatThrownBy(() -> KeyExpression.compile("#", ORDER_USER));
    thrown.isInstanceOf(ExpressionException.class).isInstanceOf(RuntimeException.class);
  }

  @Test
  void nullArgumentsAreRejectedWithAHint() {
    assertThatThrownBy(() -> KeyExpression.compile(null, ORDER_USER))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("source");
    assertThatThrownBy(() -> KeyExpression.compile("#p0", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("parameterNames");
  }
}
