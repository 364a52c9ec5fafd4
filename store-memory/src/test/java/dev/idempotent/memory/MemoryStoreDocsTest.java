package dev.idempotent.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyRecordView;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/stores/memory.md and docs/administration.md, between its markers, run: the docs
 * show these regions (checked by the examples module's {@code DocsSnippetsTest}).
 */
class MemoryStoreDocsTest {
  private static final IdempotencyPolicy SUBMIT =
      IdempotencyPolicy.builder("orders.submit").resultType(String.class).build();

  private final AtomicLong fakeClock = new AtomicLong(1_000_000_000L);
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void tearDown() {
    Idempotency.reset();
  }

  private IdempotencyStore theStoreOfTheDocs() {
    // spotless:off
    // docs/stores/memory.md: builder (begin)
    IdempotencyStore store = CaffeineIdempotencyStore.builder()
        .maximumSize(50_000)             // default 100,000 (idempotent.memory.maximum-size)
        .timeSource(fakeClock::get)      // tests: move time without sleeping
        .build();
    // docs/stores/memory.md: builder (end)
    // spotless:on
    return store;
  }

  private String submit(Idempotency idem, String key) {
    return idem.call(SUBMIT, key, () -> "receipt " + runs.incrementAndGet());
  }

  @Test
  void theBuiltStoreReplaysAndExpiresOnItsClock() {
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(theStoreOfTheDocs())
                .defaultTtl(Duration.ofMinutes(1))
                .build());
    assertThat(submit(idem, "order-7")).isEqualTo("receipt 1");
    assertThat(submit(idem, "order-7")).isEqualTo("receipt 1");
    fakeClock.addAndGet(Duration.ofMinutes(2).toNanos());
    assertThat(submit(idem, "order-7")).isEqualTo("receipt 2");
  }

  @Test
  void inspectShowsTheRecordAndForceExpireDeletesIt() {
    Idempotency.install(
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .build());
    submit(Idempotency.global(), "order-7");

    // spotless:off
    // docs/administration.md: inspect and delete (begin)
    Idempotency idem = Idempotency.global();

    Optional<IdempotencyRecordView> view = idem.inspect("", "orders.submit", "order-7");
    boolean deleted = idem.delete("", "orders.submit", "order-7");
    // docs/administration.md: inspect and delete (end)
    // spotless:on

    assertThat(view)
        .hasValueSatisfying(v -> assertThat(v.status()).isEqualTo(RecordStatus.COMPLETED));
    assertThat(deleted).isTrue();
    assertThat(idem.inspect("", "orders.submit", "order-7")).isEmpty();
    assertThat(submit(idem, "order-7")).isEqualTo("receipt 2");
  }
}
