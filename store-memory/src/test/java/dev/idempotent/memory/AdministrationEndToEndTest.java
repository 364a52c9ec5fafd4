package dev.idempotent.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyRecordView;
import dev.idempotent.OnInProgress;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Inspecting and deleting records of real calls on the memory store, on the system clock. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdministrationEndToEndTest {
  private static final IdempotencyPolicy SUBMIT =
      IdempotencyPolicy.builder("orders.submit")
          .resultType(String.class)
          .lease(Duration.ofMinutes(1))
          .waitTimeout(Duration.ofSeconds(20))
          .onInProgress(OnInProgress.WAIT)
          .build();

  private final CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().build();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final Idempotency idem =
      Idempotency.create(
          IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
    store.close();
  }

  private String submit(String key) throws Exception {
    return idem.execute(SUBMIT, key, () -> "receipt-" + runs.incrementAndGet());
  }

  @Test
  void aForceExpiredOutcomeIsNotReplayed() throws Exception {
    assertThat(submit("order-7")).isEqualTo("receipt-1");
    IdempotencyRecordView view = idem.inspect("", "orders.submit", "order-7").orElseThrow();
    assertThat(view.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(view.outcome()).isEqualTo(IdempotencyRecordView.Outcome.VALUE);
    assertThat(submit("order-7")).as("replayed").isEqualTo("receipt-1");

    assertThat(idem.delete("", "orders.submit", "order-7")).isTrue();

    assertThat(idem.inspect("", "orders.submit", "order-7")).isEmpty();
    assertThat(submit("order-7")).as("ran again").isEqualTo("receipt-2");
    assertThat(idem.delete("", "orders.submit", "order-8")).as("a key never used").isFalse();
  }

  @Test
  void forceExpiringAStuckKeyLetsItsWaiterRunLongBeforeTheLeaseEnds() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<String> stuck =
        pool.submit(
            () ->
                idem.execute(
                    SUBMIT,
                    "order-9",
                    () -> {
                      inside.countDown();
                      finish.await(20, TimeUnit.SECONDS);
                      return "stuck";
                    }));
    assertThat(inside.await(5, TimeUnit.SECONDS)).isTrue();
    Future<String> waiter = pool.submit(() -> submit("order-9"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (store.waitedKeyCount() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(store.waitedKeyCount()).as("the second call waits for the first").isOne();

    assertThat(idem.delete("", "orders.submit", "order-9")).isTrue();

    assertThat(waiter.get(5, TimeUnit.SECONDS))
        .as("the waiter ran the method, the lease is a minute")
        .isEqualTo("receipt-1");
    finish.countDown();
    assertThat(stuck.get(5, TimeUnit.SECONDS)).isEqualTo("stuck");
    assertThat(submit("order-9")).as("the outcome recorded is the waiter's").isEqualTo("receipt-1");
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .contains(IdempotencyEvent.Type.DELETED, IdempotencyEvent.Type.FENCED);
  }
}
