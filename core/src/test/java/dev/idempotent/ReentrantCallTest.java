package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A call that re-enters the scope and key its own thread already holds. */
class ReentrantCallTest {
  private static final String KEY = "order-4711-secret";

  private final RealClockStore store = new RealClockStore();
  private final Idempotency idem =
      Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
  private final AtomicInteger runs = new AtomicInteger();

  /**
   * Runs an outer call on {@code key} whose body makes the nested call and returns what it threw
   * (or null).
   */
  private Throwable nested(IdempotencyPolicy policy, String innerKey) throws Exception {
    return idem.execute(
        policy,
        KEY,
        () -> {
          runs.incrementAndGet();
          try {
            idem.execute(
                policy,
                innerKey,
                () -> {
                  runs.incrementAndGet();
                  return null;
                });
            return null;
          } catch (RuntimeException e) {
            return e;
          }
        });
  }

  @Test
  void aNestedCallWithTheSameKeyFailsAtOnceInsteadOfWaitingForItself() {
    IdempotencyPolicy waiting =
        IdempotencyPolicy.builder("nested.wait")
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofSeconds(10))
            .build();
    Throwable inner = assertTimeoutPreemptively(Duration.ofSeconds(3), () -> nested(waiting, KEY));
    assertThat(inner)
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("re-entered scope nested.wait")
        .hasMessageContaining("nested call")
        .hasMessageNotContaining(KEY);
    assertThat(runs).as("only the outer call ran").hasValue(1);
  }

  @Test
  void withRejectTheNestedCallSaysItReenteredItsOwnKey() throws Exception {
    IdempotencyPolicy rejecting = IdempotencyPolicy.builder("nested.reject").build();
    assertThat(nested(rejecting, KEY))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("re-entered");
  }

  @Test
  void aNestedCallWithAnotherKeyRunsAndTheOuterKeyIsFreeOfTheCheckAfterwards() throws Exception {
    IdempotencyPolicy waiting =
        IdempotencyPolicy.builder("nested.other").onInProgress(OnInProgress.WAIT).build();
    assertThat(nested(waiting, "another-key")).isNull();
    assertThat(runs).hasValue(2);
    assertThat((Object) idem.execute(waiting, KEY, () -> "not run"))
        .as("the outer call's null is replayed")
        .isNull();
  }
}
