package dev.idempotent.examples;

import dev.idempotent.Idempotent;
import dev.idempotent.InvocationContext;
import dev.idempotent.KeyResolver;
import dev.idempotent.OnDuplicate;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Every kind of method the aspect must cover, compiled by ajc like a user's class. */
public class WovenFeatures {
  public final AtomicInteger runs = new AtomicInteger();
  public static final AtomicInteger STATIC_RUNS = new AtomicInteger();

  public record Order(String id, List<String> lines) implements Serializable {}

  public record Customer(String id, Address address) {}

  public record Address(String city) {}

  public static final class TenantKey implements KeyResolver {
    @Override
    public String resolve(InvocationContext context) {
      return "tenant-" + context.arguments()[0];
    }
  }

  @Idempotent(key = "#id")
  public String publicMethod(String id) {
    return "public-" + id + "-" + runs.incrementAndGet();
  }

  public String callsPrivate(String id) {
    return privateMethod(id);
  }

  @Idempotent(key = "#id")
  private String privateMethod(String id) {
    return "private-" + id + "-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#id")
  public static String staticMethod(String id) {
    return "static-" + id + "-" + STATIC_RUNS.incrementAndGet();
  }

  @Idempotent(key = "#id")
  public final String finalMethod(String id) {
    return "final-" + id + "-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#customerId")
  public List<Order> genericResult(String customerId) {
    int n = runs.incrementAndGet();
    return List.of(new Order("o" + n, List.of("a", "b")), new Order("p" + n, List.of()));
  }

  @Idempotent(key = "#p0")
  public int primitiveResult(String key) {
    return runs.incrementAndGet() * 10;
  }

  @Idempotent(key = "#key")
  public void voidMethod(String key) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "#key")
  public String nullResult(String key) {
    runs.incrementAndGet();
    return null;
  }

  @Idempotent(key = "#key")
  public CompletableFuture<String> asyncResult(String key, CompletableFuture<String> completion) {
    runs.incrementAndGet();
    return completion;
  }

  @Idempotent(key = "#key")
  public CompletionStage<Map<String, Integer>> asyncStage(String key) {
    int n = runs.incrementAndGet();
    return CompletableFuture.supplyAsync(() -> Map.of("run", n));
  }

  @Idempotent
  public String defaultKeyOfAllArguments(String a, int b) {
    return a + b + "-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#customer.address?.city + ':' + #customer.id")
  public String nestedKey(Customer customer) {
    return "nested-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#customer.address.city")
  public String strictNestedKey(Customer customer) {
    return "strict-" + runs.incrementAndGet();
  }

  @Idempotent(keyResolver = TenantKey.class)
  public String resolvedKey(String tenant) {
    return "resolved-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#id", onDuplicate = OnDuplicate.REJECT)
  public String rejectDuplicates(String id) {
    return "once-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#id")
  public String overloaded(String id) {
    return "one-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#id")
  public String overloaded(String id, int extra) {
    return "two-" + runs.incrementAndGet();
  }

  @Idempotent(key = "#id", recordFailures = IllegalArgumentException.class)
  public String recordsFailure(String id) {
    runs.incrementAndGet();
    throw new IllegalArgumentException("invalid order " + id);
  }

  @Idempotent(key = "#id")
  public String failsWithoutRecording(String id) {
    runs.incrementAndGet();
    throw new IllegalStateException("transient " + id);
  }

  public String selfInvoked(String id) {
    return this.publicMethod(id) + "|" + this.publicMethod(id);
  }

  // Mistakes that must be reported clearly on the first call (the compile-time checks are
  // suppressed for them).

  @SuppressWarnings("idempotent")
  @Idempotent(key = "#order.id +")
  public String badSyntax(Order order) {
    return "never";
  }

  @SuppressWarnings("idempotent")
  @Idempotent(key = "#orderId")
  public String unknownParameter(String id) {
    return "never";
  }

  @Idempotent(key = "#id", ttl = "3 weeks")
  public String badDuration(String id) {
    return "never";
  }

  @Idempotent(key = "#id", store = "nowhere")
  public String unknownStore(String id) {
    return "never";
  }

  public static final class Plain {
    public final String value = "x";
  }

  @SuppressWarnings("idempotent.codec") // on purpose: the first call's refusal is tested
  @Idempotent(key = "#id")
  public Plain notSerializable(String id) {
    runs.incrementAndGet();
    return new Plain();
  }
}
