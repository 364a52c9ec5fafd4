package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyKeyMismatchException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demo's service on the zero-configuration store: found by ServiceLoader, nothing installed.
 */
class OrderServiceTest {
  @BeforeEach
  @AfterEach
  void zeroConfiguration() {
    Idempotency.reset();
  }

  @Test
  void zeroConfigurationUsesTheMemoryStore() {
    assertThat(Idempotency.global().config().defaultStore().getClass().getSimpleName())
        .isEqualTo("CaffeineIdempotencyStore");
  }

  @Test
  void sixtyFourThreadsOnOneKeyExecuteOnceAndAllGetTheFirstReceipt() throws Exception {
    OrderService orders = new OrderService();
    orders.setWorkMillis(20);
    OrderRequest req = new OrderRequest("c", "sku", 1);
    ExecutorService pool = Executors.newFixedThreadPool(64);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<OrderReceipt>> results = new ArrayList<>();
    try {
      for (int i = 0; i < 64; i++) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return orders.submitOrderWaiting("storm", req);
                }));
      }
      go.countDown();
      OrderReceipt first = results.get(0).get(30, TimeUnit.SECONDS);
      for (Future<OrderReceipt> f : results) {
        assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(first);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(orders.executions("order:storm")).isEqualTo(1);
  }

  @Test
  void aReusedKeyWithADifferentRequestIsAMismatch() {
    OrderService orders = new OrderService();
    orders.submitOrder("k-1", new OrderRequest("c", "sku", 1));
    assertThatThrownBy(() -> orders.submitOrder("k-1", new OrderRequest("c", "sku", 2)))
        .isInstanceOf(IdempotencyKeyMismatchException.class);
    assertThat(orders.executions("order:k-1")).isEqualTo(1);
  }

  @Test
  void redeliveredMessagesAndCallbacksApplyOnce() {
    OrderService orders = new OrderService();
    PaymentCallback cb = new PaymentCallback("p-1", "o-1", 100);
    for (int i = 0; i < 3; i++) {
      orders.onPaymentCallback(cb);
      OrderService.consumeShipment("m-1", orders);
    }
    assertThat(orders.executions("payment:p-1")).isEqualTo(1);
    assertThat(orders.executions("shipment:m-1")).isEqualTo(1);
  }

  @Test
  void configuredDefaultsComeFromIdempotentProperties() {
    IdempotencyConfig c = Idempotency.global().config();
    assertThat(c.defaultTtl()).isEqualTo(IdempotencyConfig.DEFAULT_TTL);
  }
}
