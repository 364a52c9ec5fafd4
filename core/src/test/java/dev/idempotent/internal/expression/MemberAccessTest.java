package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.internal.expression.Fixtures.Link;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which members are reachable, on public and non-public classes, and what they read. */
class MemberAccessTest {
  private static final String[] X = {"x"};

  private static Object eval(String source, Object argument) {
    return KeyExpression.compile(source, X).evaluate(new Object[] {argument});
  }

  @Test
  void getterOfAPrivateClassThroughItsPublicInterface() {
    assertThat(eval("#x.name", Fixtures.hiddenNamed("hidden"))).isEqualTo("hidden");
  }

  @Test
  void getterOnlyDeclaredByAPackagePrivateClass() {
    assertThat(eval("#x.secret", new Fixtures.OtherNamed())).isEqualTo("secret");
  }

  @Test
  void privateRecordAccessors() {
    Object line = Fixtures.line("sku-1", 3);
    assertThat(eval("#x.sku + '*' + #x.count", line)).isEqualTo("sku-1*3");
  }

  @Test
  void publicFieldOfAPrivateClass() {
    assertThat(eval("#x.value", Fixtures.holder("v"))).isEqualTo("v");
  }

  @Test
  void gettersRecordAccessorsFieldsAndArrayLengthsOfPublicClasses() {
    assertThat(eval("#x.zip", new Fixtures.Address("Bern", 3000))).isEqualTo(3000);
    assertThat(eval("#x.length()", "four")).isEqualTo(4);
    assertThat(eval("#x.length", new int[3])).isEqualTo(3);
  }

  @Test
  void jdkNonPublicImplementationsThroughTheirPublicInterfaces() {
    List<String> unmodifiable = Collections.unmodifiableList(List.of("a", "b"));
    assertThat(eval("#x.size()", unmodifiable)).isEqualTo(2);
    assertThat(eval("#x.empty", unmodifiable)).isEqualTo(false);
    Map.Entry<String, Integer> entry = Map.of("k", 1).entrySet().iterator().next();
    assertThat(eval("#x.key + '=' + #x.value", entry)).isEqualTo("k=1");
    Map.Entry<String, Integer> treeEntry = new TreeMap<>(Map.of("t", 2)).firstEntry();
    assertThat(eval("#x.key + '=' + #x.value", treeEntry)).isEqualTo("t=2");
  }

  @Test
  void lambdasAndHiddenClasses() {
    Fixtures.Named lambda = () -> "from lambda";
    assertThat(eval("#x.name", lambda)).isEqualTo("from lambda");
  }

  @Test
  void primitiveReturnsAreBoxed() {
    assertThat(eval("#x.depth", new Link(3, null))).isEqualTo(3);
    assertThat(eval("#x.vip", new Fixtures.Customer("c", false, null))).isEqualTo(false);
  }

  @Test
  void oneExpressionOnValuesOfChangingRuntimeClasses() {
    KeyExpression expression = KeyExpression.compile("#x.name", X);
    for (int i = 0; i < 3; i++) {
      assertThat(expression.evaluate(new Object[] {Fixtures.hiddenNamed("a" + i)}))
          .isEqualTo("a" + i);
      assertThat(expression.evaluate(new Object[] {new Fixtures.OtherNamed()}))
          .isEqualTo(new Fixtures.OtherNamed().getName());
      Fixtures.Named lambda = () -> "lambda";
      assertThat(expression.evaluate(new Object[] {lambda})).isEqualTo("lambda");
    }
  }

  @Test
  void deepChains() {
    int depth = 200;
    StringBuilder source = new StringBuilder("#x");
    for (int i = 0; i < depth - 1; i++) {
      source.append(i % 2 == 0 ? ".next" : "?.next");
    }
    source.append(".depth");
    assertThat(eval(source.toString(), Link.chain(depth))).isEqualTo(depth - 1);
    assertThat(eval(source + " + ':' + #x.depth", Link.chain(depth))).isEqualTo((depth - 1) + ":0");
  }

  @Test
  void deepChainFailingInTheMiddleNamesThePart() {
    String source = "#x.next.next.next.next.depth";
    try {
      eval(source, Link.chain(3));
      throw new AssertionError("expected failure");
    } catch (ExpressionEvaluationException e) {
      assertThat(e.getMessage())
          .startsWith("'#x.next.next.next' is null at column 18; use ?. to allow null");
    }
  }

  @Test
  void deepNestingOfParenthesesAndIndexes() {
    String source = "(".repeat(100) + "#x" + ")".repeat(100) + "[0]".repeat(50);
    Object value = "leaf";
    for (int i = 0; i < 50; i++) {
      value = List.of(value);
    }
    assertThat(eval(source, value)).isEqualTo("leaf");
  }
}
