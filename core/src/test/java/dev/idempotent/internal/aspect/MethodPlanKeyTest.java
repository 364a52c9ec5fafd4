package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.Idempotent;
import dev.idempotent.TestStore;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Default keys, payloads and key expressions of annotated methods, through the method plan without
 * weaving.
 */
class MethodPlanKeyTest {
  private final AtomicInteger runs = new AtomicInteger();

  @BeforeEach
  void install() {
    Idempotency.install(IdempotencyConfig.builder().defaultStore(new TestStore()).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  public record Request(String orderId, Customer customer) {}

  public record Customer(String email) {}

  /** A class that does not override Object.toString. */
  public static final class Order {
    private final String id;

    public Order(String id) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }

  @SuppressWarnings("unused")
  static final class Handlers {
    @Idempotent
    String onMessage(ByteBuffer message) {
      return "ok";
    }

    @Idempotent
    String withCallback(String id, Supplier<String> callback) {
      return "ok";
    }

    @Idempotent(key = "#p0.ordreId")
    String typo(Request request) {
      return "ok";
    }

    @Idempotent(key = "#p0.customer.email")
    String nullOnPath(Request request) {
      return "ok";
    }

    @Idempotent(key = "#p0.poll()")
    String poll(Queue<String> queue) {
      return "ok";
    }

    @Idempotent(key = "#p0.next()")
    String next(Iterator<String> iterator) {
      return "ok";
    }

    @Idempotent(key = "#p0.reverse()")
    String reverse(StringBuilder text) {
      return "ok";
    }

    @Idempotent(key = "#p0.incrementAndGet()")
    String increment(AtomicInteger counter) {
      return "ok";
    }

    @Idempotent(key = "#p0.getClass().getClassLoader()")
    String classLoader(Object any) {
      return "ok";
    }

    @Idempotent(key = "#p0.hashCode()")
    String hash(String any) {
      return "ok";
    }

    @Idempotent(key = "#p0")
    String identityKey(Order order) {
      return "ok";
    }

    @Idempotent(key = "'order:' + #p0")
    String identityKeyPart(Order order) {
      return "ok";
    }

    @Idempotent(key = "#p0.id", payload = "*")
    String payloadAll(Order order, Object extra) {
      return "ok";
    }

    @Idempotent(key = "#p0")
    String dateKey(java.util.Date date) {
      return "ok";
    }

    @Idempotent(key = "#p0.trim()")
    String trimmedKey(String id) {
      return "ok";
    }
  }

  private static MethodPlan plan(String name) {
    for (Method m : Handlers.class.getDeclaredMethods()) {
      if (m.getName().equals(name)) {
        return new MethodPlan(m, null);
      }
    }
    throw new AssertionError(name);
  }

  private Object call(MethodPlan plan, Object... args) throws Throwable {
    return plan.invoke(
        new Handlers(),
        args,
        () -> {
          runs.incrementAndGet();
          return "ok";
        });
  }

  @Test
  void threeDifferentBuffersOfTheSameLengthAreThreeExecutionsAndRepeatsReplay() throws Throwable {
    MethodPlan plan = plan("onMessage");
    for (String text : List.of("message-1", "message-2", "message-3")) {
      ByteBuffer buffer = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
      call(plan, buffer);
      assertThat(buffer.remaining()).isEqualTo(9);
    }
    assertThat(runs).hasValue(3);
    call(plan, ByteBuffer.wrap("message-2".getBytes(StandardCharsets.UTF_8)));
    assertThat(runs).hasValue(3);
  }

  @Test
  void aLambdaArgumentInADefaultKeyIsAConfigurationErrorNamingTheParameterAndTheFix() {
    MethodPlan plan = plan("withCallback");
    Supplier<String> callback = () -> "x";
    assertThatThrownBy(() -> call(plan, "id-1", callback))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("the default key digests all arguments")
        .hasMessageContaining("callback")
        .hasMessageContaining("lambda")
        .hasMessageContaining("give a key expression");
    assertThat(runs).hasValue(0);
  }

  @Test
  void aPropertyTheClassDoesNotHaveIsAConfigurationErrorAndOnlyANullOnThePathIsA400() {
    assertThatThrownBy(() -> call(plan("typo"), new Request("o-1", new Customer("a@b"))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .isNotInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("property 'ordreId' not found")
        .satisfies(
            e -> assertThat(((IdempotencyConfigurationException) e).httpStatus()).isEqualTo(500));
    assertThatThrownBy(() -> call(plan("nullOnPath"), new Request("o-1", null)))
        .isInstanceOf(IdempotencyKeyException.class)
        .satisfies(e -> assertThat(((IdempotencyKeyException) e).httpStatus()).isEqualTo(400));
    assertThat(runs).hasValue(0);
  }

  @Test
  void callsThatChangeArgumentsOrReachReflectionAreConfigurationErrorsAndChangeNothing() {
    Queue<String> queue = new ArrayDeque<>(List.of("m1", "m2"));
    assertConfigurationError(() -> call(plan("poll"), queue), "poll()");
    assertThat(queue).containsExactly("m1", "m2");
    Iterator<String> iterator = List.of("a", "b").iterator();
    assertConfigurationError(() -> call(plan("next"), iterator), "next()");
    assertThat(iterator.next()).isEqualTo("a");
    StringBuilder text = new StringBuilder("abc");
    assertConfigurationError(() -> call(plan("reverse"), text), "reverse()");
    assertThat(text).hasToString("abc");
    AtomicInteger counter = new AtomicInteger(5);
    assertConfigurationError(() -> call(plan("increment"), counter), "incrementAndGet()");
    assertThat(counter).hasValue(5);
    assertConfigurationError(() -> call(plan("classLoader"), "x"), "getClass()");
    assertConfigurationError(() -> call(plan("hash"), "x"), "hashCode()");
    assertThat(runs).hasValue(0);
  }

  @Test
  void aKeyWhoseTextIsTheInstancesIdentityIsAConfigurationErrorNamingTheType() {
    assertConfigurationError(
        () -> call(plan("identityKey"), new Order("o-1")), Order.class.getName());
    assertConfigurationError(
        () -> call(plan("identityKeyPart"), new Order("o-1")), "does not override Object.toString");
    assertThat(runs).hasValue(0);
  }

  @Test
  void payloadOfAllArgumentsRefusesALockNamingThePath() throws Throwable {
    MethodPlan plan = plan("payloadAll");
    assertConfigurationError(
        () -> call(plan, new Order("o-1"), new java.util.concurrent.locks.ReentrantLock()),
        "extra");
    call(plan, new Order("o-1"), List.of(1, 2));
    assertThat(runs).hasValue(1);
  }

  @Test
  void aDateKeyIsItsInstantWhateverTheDefaultTimeZone() throws Throwable {
    MethodPlan plan = plan("dateKey");
    java.util.TimeZone saved = java.util.TimeZone.getDefault();
    try {
      java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Europe/Paris"));
      call(plan, new java.util.Date(0));
      java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("America/New_York"));
      call(plan, new java.util.Date(0));
    } finally {
      java.util.TimeZone.setDefault(saved);
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void aBlankOrNullKeyIsA400NamingTheMethodAndTheExpression() {
    assertThatThrownBy(() -> call(plan("trimmedKey"), "  "))
        .isInstanceOfSatisfying(
            IdempotencyKeyException.class, e -> assertThat(e.httpStatus()).isEqualTo(400))
        .hasMessageContaining(
            "@Idempotent on "
                + Handlers.class.getName()
                + ".trimmedKey(String): key expression "
                + "'#p0.trim()' gave a blank key for these arguments");
    assertThatThrownBy(() -> call(plan("dateKey"), (Object) null))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("dateKey(Date): key expression '#p0' gave null");
    assertThat(runs).hasValue(0);
  }

  private static void assertConfigurationError(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
    assertThatThrownBy(call)
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContainPattern("\\w@[0-9a-f]{4,}"));
  }
}
