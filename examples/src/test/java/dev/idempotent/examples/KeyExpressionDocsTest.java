package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.Idempotent;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The first example of docs/key-expressions.md, woven and called: the page shows the region of
 * {@link Payments} (checked by {@link DocsSnippetsTest}).
 */
class KeyExpressionDocsTest {
  public record Customer(String email) {}

  public record Order(String id, Customer customer) {}

  public record Receipt(String orderId, int payment) implements Serializable {}

  static class Payments {
    final AtomicInteger payments = new AtomicInteger();

    // spotless:off
    // docs/key-expressions.md: the first example (begin)
    @Idempotent(key = "'order:' + #order.id + ':' + #order.customer?.email")
    public Receipt pay(Order order) {
      return new Receipt(order.id(), payments.incrementAndGet());
    }
    // docs/key-expressions.md: the first example (end)
    // spotless:on
  }

  @BeforeEach
  void setUp() {
    Idempotency.install(
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .build());
  }

  @AfterEach
  void tearDown() {
    Idempotency.reset();
  }

  @Test
  void theKeyIsTheOrderAndTheCustomersEmailWhenThereIsOne() {
    Payments payments = new Payments();
    Order order = new Order("o-1", new Customer("ada@example.com"));
    assertThat(payments.pay(order)).isEqualTo(new Receipt("o-1", 1));
    assertThat(payments.pay(new Order("o-1", new Customer("ada@example.com"))))
        .isEqualTo(new Receipt("o-1", 1));
    assertThat(payments.pay(new Order("o-1", new Customer("bob@example.com"))))
        .isEqualTo(new Receipt("o-1", 2));
    assertThat(payments.pay(new Order("o-1", null))).isEqualTo(new Receipt("o-1", 3));
    assertThat(payments.pay(new Order("o-1", null))).isEqualTo(new Receipt("o-1", 3));
    assertThat(payments.payments).hasValue(3);
  }
}
