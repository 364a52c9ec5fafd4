package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyInterruptedException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

/**
 * Calls from a thread whose interrupt flag is set: Redisson fails every command on such a thread.
 * That is an interrupt, not a Redis outage: the caller is told so, its flag stays set, fail-open
 * does not run the method, and a method that interrupted its own thread still gets its outcome
 * recorded (or its claim released) at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonInterruptedCallerTest {
  private static RedissonClient client;

  private final String scope = "interrupted-" + UUID.randomUUID();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();
  private RedissonIdempotencyStore store;

  @BeforeAll
  static void connect() {
    client = RedisTestEnvironment.client(2, 0);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  @AfterEach
  void clearFlag() {
    Thread.interrupted();
  }

  private Idempotency idempotency(StoreFailurePolicy failurePolicy) {
    store = RedissonIdempotencyStore.builder(client).keyPrefix("idem-interrupted:").build();
    return Idempotency.create(
        IdempotencyConfig.builder()
            .defaultStore(store)
            .listener(events::add)
            .storeFailurePolicy(failurePolicy)
            .build());
  }

  private IdempotencyPolicy policy() {
    return IdempotencyPolicy.builder(scope).resultType(String.class).build();
  }

  private String body() {
    runs.incrementAndGet();
    return "done-" + runs.get();
  }

  @ParameterizedTest
  @EnumSource(StoreFailurePolicy.class)
  void anInterruptedCallOfACompletedKeyNeverRunsTheMethodAgain(StoreFailurePolicy failurePolicy)
      throws Exception {
    Idempotency idem = idempotency(failurePolicy);
    assertThat(idem.execute(policy(), "k", this::body)).isEqualTo("done-1");

    for (int attempt = 0; attempt < 3; attempt++) {
      Thread.currentThread().interrupt();
      Throwable error = catchThrowable(() -> idem.execute(policy(), "k", this::body));
      boolean stillInterrupted = Thread.interrupted();

      assertThat(error)
          .isInstanceOf(IdempotencyInterruptedException.class)
          .hasMessageContaining("interrupted")
          .hasMessageContaining(scope);
      assertThat(stillInterrupted).as("the interrupt flag is still set").isTrue();
    }
    assertThat(runs).as("executions").hasValue(1);
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .doesNotContain(IdempotencyEvent.Type.FAIL_OPEN);
    assertThat(idem.execute(policy(), "k", this::body))
        .as("an uninterrupted repeat replays")
        .isEqualTo("done-1");
  }

  @Test
  void anInterruptedCallOfAFreshKeyLeavesNoClaimBehind() throws Exception {
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_OPEN);

    Thread.currentThread().interrupt();
    Throwable error = catchThrowable(() -> idem.execute(policy(), "fresh", this::body));
    assertThat(Thread.interrupted()).isTrue();

    assertThat(error).isInstanceOf(IdempotencyInterruptedException.class);
    assertThat(runs).hasValue(0);
    assertThat(store.read(RecordKey.of(scope, "fresh"))).as("no claim left behind").isEmpty();
    assertThat(idem.execute(policy(), "fresh", this::body))
        .as("a retry runs at once")
        .isEqualTo("done-1");
  }

  @Test
  void theOutcomeOfAMethodThatInterruptedItsThreadIsRecordedAtOnce() throws Exception {
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_CLOSED);

    String result =
        idem.execute(
            policy(),
            "k",
            () -> {
              Thread.currentThread().interrupt();
              return body();
            });
    boolean stillInterrupted = Thread.interrupted();

    assertThat(result).isEqualTo("done-1");
    assertThat(stillInterrupted).isTrue();
    assertThat(store.read(RecordKey.of(scope, "k")).orElseThrow().status())
        .as("recorded before the call returned")
        .isEqualTo(RecordStatus.COMPLETED);
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .containsExactly(IdempotencyEvent.Type.EXECUTED);
  }

  @Test
  void theClaimOfAFailedMethodThatInterruptedItsThreadIsReleasedAtOnce() throws Exception {
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_CLOSED);

    Throwable error =
        catchThrowable(
            () ->
                idem.execute(
                    policy(),
                    "k",
                    () -> {
                      Thread.currentThread().interrupt();
                      runs.incrementAndGet();
                      throw new IllegalStateException("not recorded");
                    }));
    boolean stillInterrupted = Thread.interrupted();

    assertThat(error).hasMessage("not recorded");
    assertThat(stillInterrupted).isTrue();
    assertThat(store.read(RecordKey.of(scope, "k")))
        .as("released before the call returned")
        .isEmpty();
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .doesNotContain(IdempotencyEvent.Type.STORE_ERROR);
  }
}
