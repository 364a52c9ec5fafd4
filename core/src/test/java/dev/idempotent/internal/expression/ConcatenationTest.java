package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * String concatenation with {@code +}, as Java does it, whatever the types of the parts from call
 * to call.
 */
class ConcatenationTest {
  private static final String[] AB = {"a", "b"};

  @Test
  void numbersAddUntilAStringIsInvolved() {
    Object[] numbers = {1, 2L};
    assertThat(KeyExpression.compile("'k:' + #a", AB).evaluate(numbers)).isEqualTo("k:1");
    assertThat(KeyExpression.compile("#a + ':' + #b", AB).evaluate(numbers)).isEqualTo("1:2");
    assertThat(KeyExpression.compile("#a + #b + ':'", AB).evaluate(numbers)).isEqualTo("3:");
    assertThat(KeyExpression.compile("#a + #b", AB).evaluate(numbers)).isEqualTo(3L);
  }

  @Test
  void partsWhoseTypesChangeFromCallToCall() {
    KeyExpression expression = KeyExpression.compile("'k:' + #a + ':' + #b", AB);
    assertThat(expression.evaluate(new Object[] {123456789012L, "x"}))
        .isEqualTo("k:123456789012:x");
    assertThat(expression.evaluate(new Object[] {1L, null})).isEqualTo("k:1:null");
    assertThat(expression.evaluate(new Object[] {7, "y"})).isEqualTo("k:7:y");
    assertThat(expression.evaluate(new Object[] {null, List.of(1)})).isEqualTo("k:null:[1]");
    assertThat(expression.evaluate(new Object[] {2L, 'c'})).isEqualTo("k:2:c");
    assertThat(expression.evaluate(new Object[] {-5, 3.5})).isEqualTo("k:-5:3.5");
  }

  @Test
  void intAndNullFirst() {
    KeyExpression ints = KeyExpression.compile("'i' + #a", AB);
    assertThat(ints.evaluate(new Object[] {Integer.MIN_VALUE, null})).isEqualTo("i-2147483648");
    assertThat(ints.evaluate(new Object[] {"s", null})).isEqualTo("is");
    KeyExpression nulls = KeyExpression.compile("'n' + #a", AB);
    assertThat(nulls.evaluate(new Object[] {null, null})).isEqualTo("nnull");
    assertThat(nulls.evaluate(new Object[] {4, null})).isEqualTo("n4");
  }

  @Test
  void longChains() {
    String[] names = {"a", "b", "c", "d", "e", "f", "g"};
    Object[] args = {1, 2L, "3", null, 5, 6, 7};
    KeyExpression six = KeyExpression.compile("'' + #a + #b + #c + #d + #e + #f", names);
    assertThat(six.evaluate(args)).isEqualTo("123null56");
    KeyExpression seven = KeyExpression.compile("'' + #a + #b + #c + #d + #e + #f + #g", names);
    assertThat(seven.evaluate(args)).isEqualTo("123null567");
  }

  @Test
  void literalsWithRecipeTagCharacters() {
    KeyExpression expression = KeyExpression.compile("'\\u0001' + #a + '\\u0002' + 'x'", AB);
    assertThat(expression.evaluate(new Object[] {"v", null})).isEqualTo("\u0001v\u0002x");
  }

  @Test
  void integerLiteralsInsideAStringChain() {
    assertThat(KeyExpression.compile("'v' + 1 + #a + 22", AB).evaluate(new Object[] {3, null}))
        .isEqualTo("v1322");
    assertThat(KeyExpression.compile("1 + 'a'", AB).evaluate(new Object[2])).isEqualTo("1a");
    assertThat(KeyExpression.compile("(1 + 2) + ':' + #a", AB).evaluate(new Object[] {"z", null}))
        .isEqualTo("3:z");
  }

  @Test
  void toStringThatThrowsIsReported() {
    Object bad =
        new Object() {
          @Override
          public String toString() {
            throw new IllegalStateException("no text");
          }
        };
    assertThatThrownBy(
            () -> KeyExpression.compile("'k:' + #a", AB).evaluate(new Object[] {bad, null}))
        .isInstanceOf(ExpressionEvaluationException.class)
        .hasMessageStartingWith(
            "rendering ''k:' + #a' at column 1 in ''k:' + #a' threw"
                + " java.lang.IllegalStateException")
        .hasCauseInstanceOf(IllegalStateException.class);
  }
}
