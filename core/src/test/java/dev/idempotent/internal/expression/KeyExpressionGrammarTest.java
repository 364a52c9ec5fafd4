package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.internal.expression.Fixtures.Order;
import dev.idempotent.internal.expression.Fixtures.Precedence;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class KeyExpressionGrammarTest {
  private static final String[] ORDER_USER = {"order", "user"};

  private static Object eval(String source, String[] names, Object... args) {
    return KeyExpression.compile(source, names).evaluate(args);
  }

  @Nested
  class Parameters {
    @Test
    void byName() {
      assertThat(eval("#user", ORDER_USER, "o", "u")).isEqualTo("u");
      assertThat(eval("#order", ORDER_USER, "o", "u")).isEqualTo("o");
    }

    @Test
    void byPositionWithPAndA() {
      assertThat(eval("#p0", ORDER_USER, "o", "u")).isEqualTo("o");
      assertThat(eval("#p1", ORDER_USER, "o", "u")).isEqualTo("u");
      assertThat(eval("#a1", ORDER_USER, "o", "u")).isEqualTo("u");
    }

    @Test
    void byPositionWithoutNames() {
      String[] unnamed = {null, null};
      assertThat(eval("#p1", unnamed, "o", "u")).isEqualTo("u");
      String[] synthetic = {"arg0", "arg1"};
      assertThat(eval("#a0", synthetic, "o", "u")).isEqualTo("o");
      assertThat(eval("#arg1", synthetic, "o", "u")).isEqualTo("u");
    }

    @Test
    void argsIndexPositionAndNameReadTheSameArgument() {
      Object[] args = {"o", "u"};
      for (String source : List.of("#args[1]", "#p1", "#a1", "#user")) {
        assertThat(KeyExpression.compile(source, ORDER_USER).evaluate(args))
            .as(source)
            .isSameAs(args[1]);
      }
    }

    @Test
    void argsIsTheWholeArray() {
      Object[] args = {"o", "u"};
      assertThat(eval("#args", ORDER_USER, args)).isSameAs(args);
      assertThat(eval("#args.length", ORDER_USER, args)).isEqualTo(2);
      assertThat(eval("#args[#p1]", new String[] {"x", "i"}, "first", 0)).isEqualTo("first");
    }

    @Test
    void realNameWinsOverPositionalForm() {
      assertThat(eval("#p0", new String[] {"p1", "p0"}, "first", "second")).isEqualTo("second");
      assertThat(eval("#args", new String[] {"args"}, (Object) "the-param")).isEqualTo("the-param");
    }

    @Test
    void nullArgument() {
      assertThat(eval("#p0", ORDER_USER, null, "u")).isNull();
    }

    @Test
    void nullArgumentArrayMeansNoArguments() {
      assertThat(KeyExpression.compile("'constant'", new String[0]).evaluate(null))
          .isEqualTo("constant");
    }

    @Test
    void sourceIsKept() {
      KeyExpression expression = KeyExpression.compile(" #order.id ", ORDER_USER);
      assertThat(expression.source()).isEqualTo(" #order.id ");
      assertThat(expression).hasToString("KeyExpression[ #order.id ]");
    }

    @Test
    void parameterNamesAreCopied() {
      String[] names = {"order"};
      KeyExpression expression = KeyExpression.compile("#order", names);
      names[0] = "changed";
      assertThat(expression.evaluate(new Object[] {"o"})).isEqualTo("o");
    }
  }

  @Nested
  class Properties {
    private final Order order = Fixtures.order(42);

    @Test
    void getter() {
      assertThat(eval("#order.customer.name", ORDER_USER, order, null)).isEqualTo("Ada");
    }

    @Test
    void booleanIsGetter() {
      assertThat(eval("#order.customer.vip", ORDER_USER, order, null)).isEqualTo(true);
      assertThat(eval("#order.paid", ORDER_USER, order, null)).isEqualTo(Boolean.TRUE);
    }

    @Test
    void recordAccessor() {
      assertThat(eval("#order.customer.address.city", ORDER_USER, order, null)).isEqualTo("Paris");
      assertThat(eval("#order.customer.address.zip", ORDER_USER, order, null)).isEqualTo(75001);
    }

    @Test
    void publicField() {
      assertThat(eval("#order.id", ORDER_USER, order, null)).isEqualTo(42L);
      order.note = "n";
      assertThat(eval("#order.note", ORDER_USER, order, null)).isEqualTo("n");
    }

    @Test
    void precedenceGetterThenIsThenRecordAccessorThenField() {
      Precedence p = new Precedence();
      assertThat(eval("#p0.code", new String[] {"p"}, p)).isEqualTo("getter");
      assertThat(eval("#p0.flag", new String[] {"p"}, p)).isEqualTo(true);
      // label() is not a getter and Precedence is not a record: the public field is read, label()
      // is never called
      assertThat(eval("#p0.label", new String[] {"p"}, p)).isEqualTo("field");
      assertThat(eval("#p0.only", new String[] {"p"}, p)).isEqualTo("field");
    }

    @Test
    void arrayLength() {
      assertThat(eval("#order.quantities.length", ORDER_USER, order, null)).isEqualTo(2);
    }

    @Test
    void propertiesOfJdkTypes() {
      assertThat(eval("#p0.length", new String[] {"x"}, "text")).isEqualTo(4);
      assertThat(eval("#p0.empty", new String[] {"x"}, new ArrayList<>())).isEqualTo(true);
      assertThat(eval("#p0.present", new String[] {"x"}, Optional.of(1))).isEqualTo(true);
    }

    @Test
    void whitespaceAroundDots() {
      assertThat(eval("  #order . customer\t.\nname  ", ORDER_USER, order, null)).isEqualTo("Ada");
    }
  }

  @Nested
  class Methods {
    private final Order order = Fixtures.order(7);

    @Test
    void noArgumentMethod() {
      assertThat(eval("#order.getItems().size()", ORDER_USER, order, null)).isEqualTo(2);
      assertThat(eval("#order.toString()", ORDER_USER, order, null)).isEqualTo("Order#7");
      assertThat(eval("#p0.length()", new String[] {"s"}, "abcd")).isEqualTo(4);
      assertThat(eval("#p0.toUpperCase()", new String[] {"s"}, "abc")).isEqualTo("ABC");
    }

    @Test
    void getterCalledAsMethod() {
      assertThat(eval("#order.getCustomer().getName()", ORDER_USER, order, null)).isEqualTo("Ada");
    }

    @Test
    void optionalGetIsAMethodCall() {
      assertThat(eval("#order.coupon.get()", ORDER_USER, order, null)).isEqualTo("SPRING");
      assertThat(eval("#order.coupon.get().length()", ORDER_USER, order, null)).isEqualTo(6);
    }

    @Test
    void whitespaceBeforeParentheses() {
      assertThat(eval("#order.getItems ( ).size ( )", ORDER_USER, order, null)).isEqualTo(2);
    }

    @Test
    void methodOnLiteralAndParentheses() {
      assertThat(eval("'abc'.length()", new String[0])).isEqualTo(3);
      assertThat(eval("('ab' + #p0).toUpperCase()", new String[] {"s"}, "cd")).isEqualTo("ABCD");
    }
  }

  @Nested
  class SafeNavigation {
    @Test
    void nullReceiverGivesNull() {
      assertThat(eval("#p0?.name", new String[] {"c"}, (Object) null)).isNull();
      assertThat(eval("#p0?.name()", new String[] {"c"}, (Object) null)).isNull();
      assertThat(eval("#p0?.[0]", new String[] {"c"}, (Object) null)).isNull();
    }

    @Test
    void nonNullReceiverReadsNormally() {
      Order order = Fixtures.order(1);
      assertThat(eval("#p0?.customer?.name", new String[] {"o"}, order)).isEqualTo("Ada");
      assertThat(eval("#p0?.items?.[1]", new String[] {"o"}, order)).isEqualTo("pear");
    }

    @Test
    void chainOfSafeNavigation() {
      Order order = new Order(1, null, List.of(), Map.of(), null, null, Optional.empty());
      assertThat(eval("#p0?.customer?.address?.city", new String[] {"o"}, order)).isNull();
      assertThat(eval("'c:' + #p0?.customer?.name", new String[] {"o"}, order)).isEqualTo("c:null");
    }
  }

  @Nested
  class Indexes {
    private final Order order = Fixtures.order(3);

    @Test
    void listAndArray() {
      assertThat(eval("#order.items[0]", ORDER_USER, order, null)).isEqualTo("apple");
      assertThat(eval("#order.items[1]", ORDER_USER, order, null)).isEqualTo("pear");
      assertThat(eval("#order.quantities[1]", ORDER_USER, order, null)).isEqualTo(5);
      assertThat(eval("#p0[2]", new String[] {"a"}, (Object) new String[] {"x", "y", "z"}))
          .isEqualTo("z");
      assertThat(eval("#p0[0]", new String[] {"a"}, (Object) new long[] {9L})).isEqualTo(9L);
    }

    @Test
    void mapWithQuotedKeys() {
      assertThat(eval("#order.attributes['channel']", ORDER_USER, order, null)).isEqualTo("web");
      assertThat(eval("#order.attributes[\"priority\"]", ORDER_USER, order, null)).isEqualTo(3);
      assertThat(eval("#order.attributes['missing']", ORDER_USER, order, null)).isNull();
    }

    @Test
    void mapWithParameterKeysOfAnyType() {
      UUID id = UUID.fromString("00000000-0000-0000-0000-000000000001");
      Map<Object, String> map = new HashMap<>();
      map.put(5L, "long five");
      map.put(5, "int five");
      map.put(id, "uuid");
      map.put(List.of(1, 2), "list");
      String[] names = {"map", "key"};
      assertThat(eval("#map[#key]", names, map, 5L)).isEqualTo("long five");
      assertThat(eval("#map[#p1]", names, map, 5)).isEqualTo("int five");
      assertThat(eval("#map[#key]", names, map, id)).isEqualTo("uuid");
      assertThat(eval("#map[#key]", names, map, List.of(1, 2))).isEqualTo("list");
      assertThat(eval("#map[5]", names, map, null)).isEqualTo("int five");
    }

    @Test
    void indexComputedByAnExpression() {
      Map<String, String> map = Map.of("k-1", "one");
      assertThat(eval("#p0['k-' + #p1]", new String[] {"m", "n"}, map, 1)).isEqualTo("one");
      assertThat(eval("#p0[#p1.size()]", new String[] {"l", "m"}, List.of("a", "b"), List.of(1)))
          .isEqualTo("b");
    }

    @Test
    void indexesChain() {
      List<Map<String, List<Integer>>> nested = List.of(Map.of("k", List.of(10, 20)));
      assertThat(eval("#p0[0]['k'][1]", new String[] {"n"}, nested)).isEqualTo(20);
      assertThat(eval("#p0 [0] ['k'] [ 1 ]", new String[] {"n"}, nested)).isEqualTo(20);
    }

    @Test
    void longIndexOnList() {
      assertThat(eval("#p0[#p1]", new String[] {"l", "i"}, List.of("a", "b"), 1L)).isEqualTo("b");
    }
  }

  @Nested
  class Literals {
    private final String[] none = new String[0];

    @Test
    void singleAndDoubleQuotedStrings() {
      assertThat(eval("'abc'", none)).isEqualTo("abc");
      assertThat(eval("\"abc\"", none)).isEqualTo("abc");
      assertThat(eval("''", none)).isEqualTo("");
      assertThat(eval("\"it's\"", none)).isEqualTo("it's");
      assertThat(eval("'say \"hi\"'", none)).isEqualTo("say \"hi\"");
    }

    @Test
    void doubledQuoteInsideQuotes() {
      assertThat(eval("'it''s'", none)).isEqualTo("it's");
      assertThat(eval("''''", none)).isEqualTo("'");
      assertThat(eval("\"a\"\"b\"", none)).isEqualTo("a\"b");
    }

    @Test
    void backslashEscapes() {
      assertThat(eval("'a\\\\b'", none)).isEqualTo("a\\b");
      assertThat(eval("'it\\'s'", none)).isEqualTo("it's");
      assertThat(eval("\"q\\\"q\"", none)).isEqualTo("q\"q");
      assertThat(eval("'\\n\\t\\r\\b\\f'", none)).isEqualTo("\n\t\r\b\f");
      assertThat(eval("'\\u0041\\u00e9'", none)).isEqualTo("A\u00e9");
    }

    @Test
    void stringsKeepInnerWhitespaceAndSymbols() {
      assertThat(eval("'  #p0 + [x] . '", none)).isEqualTo("  #p0 + [x] . ");
    }

    @Test
    void integers() {
      assertThat(eval("0", none)).isEqualTo(0);
      assertThat(eval("42", none)).isEqualTo(42);
      assertThat(eval("007", none)).isEqualTo(7);
      assertThat(eval("2147483647", none)).isEqualTo(Integer.MAX_VALUE);
      assertThat(eval("2147483648", none)).isEqualTo(2147483648L);
      assertThat(eval("9223372036854775807", none)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void parentheses() {
      assertThat(eval("('a')", none)).isEqualTo("a");
      assertThat(eval("((((#p0))))", new String[] {"x"}, "v")).isEqualTo("v");
      assertThat(eval("(#p0).length()", new String[] {"x"}, "v")).isEqualTo(1);
    }
  }

  @Nested
  class Concatenation {
    private final String[] ab = {"a", "b"};

    @Test
    void stringsAndValues() {
      Order order = Fixtures.order(5);
      assertThat(eval("'order:' + #p0.id + ':' + #p0.customer.name", new String[] {"o"}, order))
          .isEqualTo("order:5:Ada");
      assertThat(eval("#p0 + '-' + #p1", ab, 1, 2)).isEqualTo("1-2");
      assertThat(eval("#p0 + #p1", ab, "x", 2)).isEqualTo("x2");
      assertThat(eval("#p0 + #p1", ab, 2, "x")).isEqualTo("2x");
    }

    @Test
    void nullOperands() {
      assertThat(eval("'x' + #p0", ab, null, null)).isEqualTo("xnull");
      assertThat(eval("#p0 + 'x'", ab, null, null)).isEqualTo("nullx");
      assertThat(eval("#p0 + #p1", ab, null, null)).isEqualTo("nullnull");
      assertThat(eval("#p0 + #p1", ab, null, 1)).isEqualTo("null1");
    }

    @Test
    void twoIntegersAddLikeJava() {
      assertThat(eval("1 + 2", ab)).isEqualTo(3);
      assertThat(eval("#p0 + #p1", ab, 1, 2)).isEqualTo(3);
      assertThat(eval("#p0 + #p1", ab, 1, 2L)).isEqualTo(3L);
      assertThat(eval("#p0 + #p1", ab, (short) 1, (byte) 2)).isEqualTo(3);
      assertThat(eval("#p0 + #p1", ab, Integer.MAX_VALUE, 1)).isEqualTo(Integer.MIN_VALUE);
      assertThat(eval("#p0 + #p1", ab, 1.5, 1)).isEqualTo(2.5);
      assertThat(eval("#p0 + #p1", ab, 1.5f, 1)).isEqualTo(2.5f);
    }

    @Test
    void leftToRightAsInJava() {
      assertThat(eval("1 + 2 + 'x'", ab)).isEqualTo("3x");
      assertThat(eval("'x' + 1 + 2", ab)).isEqualTo("x12");
      assertThat(eval("'x' + (1 + 2)", ab)).isEqualTo("x3");
      assertThat(eval("#p0 + #p1 + '|' + #p0 + #p1", ab, 1, 2)).isEqualTo("3|12");
    }

    @Test
    void otherPairsConcatenate() {
      assertThat(eval("#p0 + #p1", ab, List.of(1), List.of(2))).isEqualTo("[1][2]");
      assertThat(eval("#p0 + #p1", ab, 'c', 1)).isEqualTo("c1");
      assertThat(eval("#p0 + #p1", ab, true, 1)).isEqualTo("true1");
    }

    @Test
    void adjacentLiteralsAreJoined() {
      KeyExpression joined = KeyExpression.compile("'a' + 'b' + 'c'", ab);
      assertThat(joined.evaluate(new Object[2])).isEqualTo("abc");
      assertThat(eval("1 + 'a' + 'b' + #p0 + 'c' + 'd'", ab, 2, null)).isEqualTo("1ab2cd");
    }

    @Test
    void whitespaceAroundPlus() {
      assertThat(eval("#p0+#p1", ab, "a", "b")).isEqualTo("ab");
      assertThat(eval("  #p0  +\n\t#p1  ", ab, "a", "b")).isEqualTo("ab");
    }

    @Test
    void valuesRenderWithToString() {
      Object[] array = {"z"};
      assertThat(eval("'' + #p0 + #p1", ab, 12345678901L, Arrays.asList(1, null)))
          .isEqualTo("12345678901[1, null]");
      assertThat(eval("'' + #p0.length", ab, array, null)).isEqualTo("1");
    }

    @Test
    void concatenationIsDeterministic() {
      KeyExpression expression = KeyExpression.compile("'k:' + #a + ':' + #b.customer.name", ab);
      Order order = Fixtures.order(1);
      String first = (String) expression.evaluate(new Object[] {7, order});
      for (int i = 0; i < 100; i++) {
        assertThat(expression.evaluate(new Object[] {7, order})).isEqualTo(first);
      }
      assertThat(first).isEqualTo("k:7:Ada");
      assertThat(
              KeyExpression.compile("'k:' + #a + ':' + #b.customer.name", ab)
                  .evaluate(new Object[] {7, order}))
          .isEqualTo(first);
    }
  }
}
