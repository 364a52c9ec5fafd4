package dev.idempotent.internal.expression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.internal.expression.Fixtures.Named;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One compiled expression shared by threads that pass receivers of different runtime classes. */
class KeyExpressionConcurrencyTest {
  private static final int THREADS = 8;
  private static final int ROUNDS = 20_000;

  /**
   * Four unrelated classes with a "name" property, read by a getter, a record accessor and a field.
   */
  public static final class BeanName {
    private final String name;

    public BeanName(String name) {
      this.name = name;
    }

    public String getName() {
      return name;
    }
  }

  public record RecordName(String name) {}

  public static final class FieldName {
    public final String name;

    public FieldName(String name) {
      this.name = name;
    }
  }

  private static Object receiver(int kind, String name) {
    return switch (kind) {
      case 0 -> new BeanName(name);
      case 1 -> new RecordName(name);
      case 2 -> new FieldName(name);
      case 3 -> Fixtures.hiddenNamed(name);
      default -> (Named) () -> name;
    };
  }

  @Test
  void polymorphicReceiversFromSeveralThreads() throws Exception {
    KeyExpression expression =
        KeyExpression.compile("'k:' + #p0.name + ':' + #p1", new String[] {"a", "b"});
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        Callable<Integer> task =
            () -> {
              start.await(10, TimeUnit.SECONDS);
              int checked = 0;
              for (int i = 0; i < ROUNDS; i++) {
                int kind = (i + thread) % 5;
                String name = "n" + thread + "-" + i;
                Object value = expression.evaluate(new Object[] {receiver(kind, name), kind});
                if (!value.equals("k:" + name + ":" + kind)) {
                  throw new AssertionError("thread " + thread + " round " + i + " got " + value);
                }
                checked++;
              }
              return checked;
            };
        results.add(pool.submit(task));
      }
      start.countDown();
      for (Future<Integer> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(ROUNDS);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void firstResolutionRacesFromManyThreads() throws Exception {
    // fresh property names, so every thread races to resolve the same members at the same time
    KeyExpression expression =
        KeyExpression.compile(
            "#p0.customer.address.city + #p0.items.size() + #p0.attributes['channel']",
            new String[] {"o"});
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch ready = new CountDownLatch(THREADS);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Object>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        results.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  start.await(10, TimeUnit.SECONDS);
                  return expression.evaluate(new Object[] {Fixtures.order(1)});
                }));
      }
      assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
      start.countDown();
      for (Future<Object> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("Paris2web");
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void deterministicAcrossThreadsAndCompilations() throws Exception {
    String source = "'order:' + #o.id + ':' + #o.customer?.name + ':' + #o.items[0] + ':' + #m[#k]";
    String[] names = {"o", "m", "k"};
    Map<Long, String> map = Map.of(7L, "seven");
    Object[] args = {Fixtures.order(99), map, 7L};
    String expected = "order:99:Ada:apple:seven";
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Object>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        results.add(
            pool.submit(
                () -> {
                  List<Object> seen = new ArrayList<>();
                  for (int i = 0; i < 1_000; i++) {
                    seen.add(KeyExpression.compile(source, names).evaluate(args));
                  }
                  return seen;
                }));
      }
      for (Future<List<Object>> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).hasSize(1_000).containsOnly(expected);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
