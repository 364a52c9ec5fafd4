package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.internal.expression.Fixtures.Customer;
import dev.idempotent.internal.expression.Fixtures.Order;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class KeyExpressionEvaluationErrorTest {
  private static final String[] ORDER = {"order"};

  private static ExpressionEvaluationException failure(
      String source, String[] names, Object... args) {
    KeyExpression expression = KeyExpression.compile(source, names);
    try {
      Object value = expression.evaluate(args);
      throw new AssertionError("expected an evaluation error for " + source + " but got " + value);
    } catch (ExpressionEvaluationException e) {
      return e;
    }
  }

  private static Order orderWithoutCustomer() {
    return new Order(1, null, List.of("a"), Map.of(), null, null, Optional.empty());
  }

  @Test
  void nullReceiverWithoutSafeNavigation() {
    ExpressionEvaluationException e =
        failure("#order.customer.name", ORDER, orderWithoutCustomer());
    assertThat(e.getMessage())
        .startsWith("'#order.customer' is null at column 16; use ?. to allow null")
        .contains("'#order.customer.name'");
  }

  @Test
  void nullArgumentWithoutSafeNavigation() {
    ExpressionEvaluationException e = failure("'k:' + #order.id", ORDER, (Object) null);
    assertThat(e.getMessage()).startsWith("'#order' is null at column 14; use ?. to allow null");
  }

  @Test
  void nullReceiverOfAMethodCallAndOfAnIndex() {
    assertThat(failure("#order.customer.toString()", ORDER, orderWithoutCustomer()).getMessage())
        .startsWith("'#order.customer' is null at column 16; use ?. to allow null");
    assertThat(
            failure("#order.attributes['k'].length()", ORDER, orderWithoutCustomer()).getMessage())
        .startsWith("'#order.attributes['k']' is null at column 23; use ?. to allow null");
    assertThat(failure("#p0[0]", ORDER, (Object) null).getMessage())
        .startsWith("'#p0' is null at column 4; use ?.[ to allow null");
  }

  @Test
  void safeNavigationAppliesToOneStepOnly() {
    Order order = orderWithoutCustomer();
    assertThat(KeyExpression.compile("#order?.customer", ORDER).evaluate(new Object[] {order}))
        .isNull();
    // #order.customer is null and ".name" has no "?": an error, as in SpEL
    assertThat(failure("#order?.customer.name", ORDER, order).getMessage())
        .startsWith("'#order?.customer' is null at column 17; use ?. to allow null");
  }

  @Test
  void propertyNotFoundNamesPropertyAndClassAndListsReadableOnes() {
    ExpressionEvaluationException e = failure("#order.customer.nmae", ORDER, Fixtures.order(1));
    assertThat(e.getMessage())
        .startsWith(
            "property 'nmae' not found on "
                + Customer.class.getName()
                + " at column 16 in '#order.customer.nmae'")
        .contains("readable properties: address, name, vip");
  }

  @Test
  void propertyNotFoundOnAMapSuggestsAnIndex() {
    ExpressionEvaluationException e =
        failure("#p0.channel", ORDER, new HashMap<>(Map.of("channel", "web")));
    assertThat(e.getMessage())
        .contains("property 'channel' not found on java.util.HashMap")
        .contains("for a map entry write ['channel']");
  }

  @Test
  void propertyNotFoundNamesTheRuntimeClassNotTheDeclaredOne() {
    KeyExpression expression = KeyExpression.compile("#p0.name", ORDER);
    assertThat(expression.evaluate(new Object[] {Fixtures.order(1).getCustomer()}))
        .isEqualTo("Ada");
    assertThatThrownBy(() -> expression.evaluate(new Object[] {42}))
        .isInstanceOf(ExpressionEvaluationException.class)
        .hasMessageContaining("property 'name' not found on java.lang.Integer at column 4");
  }

  @Test
  void methodNotFound() {
    assertThat(failure("#order.nothing()", ORDER, Fixtures.order(1)).getMessage())
        .startsWith("method 'nothing()' not found on " + Order.class.getName() + " at column 7")
        .contains("only public methods without arguments can be called");
    // a getter is found as a property but "customer()" is not a method
    assertThat(failure("#order.customer()", ORDER, Fixtures.order(1)).getMessage())
        .startsWith("method 'customer()' not found");
  }

  @Test
  void methodsWithArgumentsAreNotFound() {
    assertThat(failure("#p0.charAt()", ORDER, "abc").getMessage())
        .startsWith("method 'charAt()' not found on java.lang.String");
  }

  @Test
  void staticAndVoidMethodsAreRejected() {
    assertThat(failure("#order.version()", ORDER, Fixtures.order(1)).getMessage())
        .startsWith("method 'version()' is static on " + Order.class.getName())
        .contains("static calls are not supported");
    assertThat(failure("#order.touch()", ORDER, Fixtures.order(1)).getMessage())
        .startsWith("method 'touch()' returns void on " + Order.class.getName());
  }

  @Test
  void indexOutOfRange() {
    Order order = Fixtures.order(1);
    assertThat(failure("#order.items[2]", ORDER, order).getMessage())
        .isEqualTo(
            "index 2 is out of range for '#order.items' (size 2) at column 13 in"
                + " '#order.items[2]'");
    assertThat(failure("#order.quantities[5]", ORDER, order).getMessage())
        .startsWith("index 5 is out of range for '#order.quantities' (length 2) at column 18");
    assertThat(failure("#p0[#p1]", new String[] {"a", "i"}, new Object[] {"x"}, -1).getMessage())
        .startsWith("index -1 is out of range for '#p0' (length 1)");
    assertThat(failure("#p0[#p1]", new String[] {"a", "i"}, List.of(), 1L << 40).getMessage())
        .startsWith("index 1099511627776 is out of range for '#p0' (size 0)");
    assertThat(failure("#args[#p0]", ORDER, 3).getMessage())
        .startsWith("index 3 is out of range for '#args' (length 1) at column 6");
  }

  @Test
  void nonIntegerIndexOnAList() {
    assertThat(failure("#p0['a']", ORDER, List.of("x")).getMessage())
        .startsWith("index ''a'' of '#p0' is a java.lang.String at column 4")
        .contains("need an integer index");
    assertThat(failure("#p0[#p1]", new String[] {"l", "i"}, List.of("x"), null).getMessage())
        .startsWith("index '#p1' of '#p0' is null");
  }

  @Test
  void indexOnSomethingElse() {
    assertThat(failure("#p0[0]", ORDER, "text").getMessage())
        .startsWith("cannot index '#p0', a java.lang.String at column 4")
        .contains("arrays, Lists and Maps");
  }

  @Test
  void mapThatRejectsTheKey() {
    Map<String, String> sorted = new TreeMap<>(Map.of("a", "b"));
    ExpressionEvaluationException e = failure("#p0[#p1]", new String[] {"m", "k"}, sorted, 1);
    assertThat(e.getMessage())
        .startsWith("reading '#p0[#p1]' at column 4")
        .contains("ClassCastException");
    assertThat(e.getCause()).isInstanceOf(ClassCastException.class);
  }

  @Test
  void getterThatThrows() {
    ExpressionEvaluationException e = failure("#p0.broken", ORDER, new Fixtures.Failing());
    assertThat(e.getMessage())
        .startsWith(
            "reading '#p0.broken' at column 4 in '#p0.broken' threw"
                + " java.lang.IllegalStateException");
    assertThat(e.getCause())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("broken on purpose");
  }

  @Test
  void getterThatThrowsACheckedException() {
    ExpressionEvaluationException e = failure("#p0.checked", ORDER, new Fixtures.Failing());
    assertThat(e.getCause()).isInstanceOf(IOException.class).hasMessage("checked on purpose");
  }

  @Test
  void optionalGetOnEmpty() {
    ExpressionEvaluationException e = failure("#p0.get()", ORDER, Optional.empty());
    assertThat(e.getMessage()).startsWith("reading '#p0.get()' at column 4");
  }

  @Test
  void tooFewArguments() {
    KeyExpression expression = KeyExpression.compile("#p1", new String[] {"a", "b"});
    assertThatThrownBy(() -> expression.evaluate(new Object[] {"only one"}))
        .isInstanceOf(ExpressionEvaluationException.class)
        .hasMessage("'#p1' reads 2 argument(s) but got 1");
    assertThatThrownBy(() -> expression.evaluate(null))
        .hasMessage("'#p1' reads 2 argument(s) but got 0");
  }

  @Test
  void missingReaderIsCachedAndStillReported() {
    KeyExpression expression = KeyExpression.compile("#p0.nope", ORDER);
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> expression.evaluate(new Object[] {"x"}))
          .isInstanceOf(ExpressionEvaluationException.class)
          .hasMessageStartingWith("property 'nope' not found on java.lang.String");
    }
  }
}
