package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayDeque;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The language only reads: getters, record accessors and a short list of read-only methods of value
 * types.
 */
class KeyExpressionReadOnlyTest {
  private static final String[] X = {"x"};

  private static Object eval(String source, Object argument) {
    return KeyExpression.compile(source, X).evaluate(new Object[] {argument});
  }

  private static ExpressionTypeException refused(String source, Object argument) {
    try {
      Object value = KeyExpression.compile(source, X).evaluate(new Object[] {argument});
      throw new AssertionError("expected " + source + " to be refused, got " + value);
    } catch (ExpressionTypeException e) {
      return e;
    }
  }

  /** A bean with a getter and a method that changes it. */
  public static final class Counter {
    private int value;

    public int getValue() {
      return value;
    }

    public int bump() {
      return ++value;
    }

    public String name() {
      return "not an accessor";
    }
  }

  public record Line(String sku, int qty) {}

  @Test
  void mutatorsAndReflectionAreRefusedWithoutBeingCalled() {
    Queue<String> queue = new ArrayDeque<>(List.of("m1"));
    assertThat(refused("#x.poll()", queue).getMessage())
        .contains("poll()")
        .contains("read-only methods");
    assertThat(queue).containsExactly("m1");
    StringBuilder text = new StringBuilder("ab");
    refused("#x.reverse()", text);
    assertThat(text).hasToString("ab");
    AtomicInteger counter = new AtomicInteger();
    refused("#x.incrementAndGet()", counter);
    refused("#x.getAndIncrement()", counter);
    assertThat(counter).hasValue(0);
    Counter bean = new Counter();
    assertThat(refused("#x.bump()", bean).getMessage())
        .contains("neither a getter nor a record accessor");
    assertThat(bean.getValue()).isZero();
    refused("#x.name", bean);
    refused("#x.iterator()", List.of(1));
    for (String call : List.of("getClass()", "hashCode()", "clone()", "class")) {
      refused("#x." + call, "text");
    }
    refused("#x.toString()", new Object());
    refused("#x.toString()", new Date(0));
  }

  @Test
  void gettersRecordAccessorsAndTheListedValueMethodsAreAllowed() {
    assertThat(eval("#x.value", new Counter())).isEqualTo(0);
    assertThat(eval("#x.sku + ':' + #x.qty()", new Line("s", 2))).isEqualTo("s:2");
    assertThat(eval("#x.trim().length()", " ab ")).isEqualTo(2);
    assertThat(eval("#x.size() + ':' + #x.empty", List.of(1))).isEqualTo("1:false");
    assertThat(eval("#x.size()", Map.of())).isEqualTo(0);
    assertThat(eval("#x.get()", Optional.of("o"))).isEqualTo("o");
    assertThat(eval("#x.present", Optional.empty())).isEqualTo(false);
    assertThat(eval("#x.intValue()", new AtomicInteger(4))).isEqualTo(4);
    assertThat(eval("#x.toPlainString()", new BigDecimal("1E+3"))).isEqualTo("1000");
    assertThat(eval("#x.name()", Thread.State.NEW)).isEqualTo("NEW");
    assertThat(eval("#x.year", LocalDate.of(2024, 1, 2))).isEqualTo(2024);
    assertThat(eval("#x.toEpochMilli()", Instant.ofEpochMilli(5))).isEqualTo(5L);
    assertThat(eval("#x.time", new Date(7))).isEqualTo(7L);
  }

  @Test
  void caseConversionDoesNotDependOnTheHostLocale() {
    Locale saved = Locale.getDefault();
    try {
      Locale.setDefault(Locale.forLanguageTag("tr-TR"));
      assertThat(eval("#x.toUpperCase()", "invoice")).isEqualTo("INVOICE");
      assertThat(eval("#x.toLowerCase()", "INVOICE")).isEqualTo("invoice");
    } finally {
      Locale.setDefault(saved);
    }
  }

  @Test
  void mistakesInTheExpressionAreTypeErrorsAndNullsOnThePathAreNot() {
    assertThat(refused("#x.ordreId", new Line("s", 1)).getMessage())
        .startsWith("property 'ordreId' not found");
    refused("#x.nothing()", new Line("s", 1));
    refused("#x[0]", "text");
    assertThat(refused("#x['a']", List.of("a")).getMessage()).contains("need an integer index");
    assertThatThrownBy(() -> eval("#x.sku.length()", new Line(null, 1)))
        .isInstanceOf(ExpressionEvaluationException.class)
        .isNotInstanceOf(ExpressionTypeException.class);
    assertThatThrownBy(() -> eval("#x[5]", List.of()))
        .isInstanceOf(ExpressionEvaluationException.class)
        .isNotInstanceOf(ExpressionTypeException.class);
  }

  /** A class whose text is its identity. */
  static final class Order {
    final String id = "o-1";
  }

  @Test
  void keyTextThatIsTheInstancesIdentityIsRefusedAndDatesRenderAsTheirInstant() {
    KeyExpression whole = KeyExpression.compile("#x", X);
    assertThatThrownBy(() -> whole.evaluateKey(new Object[] {new Order()}))
        .isInstanceOf(ExpressionTypeException.class)
        .hasMessageContaining(Order.class.getName())
        .hasMessageContaining("does not override Object.toString");
    assertThatThrownBy(() -> whole.evaluateKey(new Object[] {new String[] {"a"}}))
        .isInstanceOf(ExpressionTypeException.class);
    assertThatThrownBy(() -> whole.evaluateKey(new Object[] {List.of(new Order())}))
        .isInstanceOf(ExpressionTypeException.class);
    assertThatThrownBy(() -> eval("'k:' + #x", new Order()))
        .isInstanceOf(ExpressionTypeException.class);
    assertThatThrownBy(() -> eval("'k:' + #x + ':' + #x + #x + #x + #x + #x + #x", new Order()))
        .isInstanceOf(ExpressionTypeException.class);
    assertThat(whole.evaluateKey(new Object[] {new Date(0)})).isEqualTo("1970-01-01T00:00:00Z");
    assertThat(eval("'k:' + #x", new Date(0))).isEqualTo("k:1970-01-01T00:00:00Z");
    assertThat(whole.evaluateKey(new Object[] {List.of("a", 1)})).isEqualTo("[a, 1]");
    assertThat(whole.evaluateKey(new Object[] {null})).isNull();
  }
}
