package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A caller tells a replay from a first run in its own flow ({@link
 * Idempotency#lastCallReplayed()}), and a {@link ReplayHook} adjusts what a repeat gets without
 * changing what is recorded.
 */
class ReplaySignalTest {
  private final TestStore store = new TestStore();
  private final AtomicInteger runs = new AtomicInteger();

  private Idempotency idempotency(ReplayHook hook) {
    return Idempotency.create(
        IdempotencyConfig.builder().defaultStore(store).timeSource(store).replayHook(hook).build());
  }

  private String submit(String order) {
    return "receipt-" + order + "-" + runs.incrementAndGet();
  }

  @Test
  void aFirstRunIsNotAReplayAndItsRepeatIs() throws Exception {
    Idempotency idempotency = idempotency(ReplayHook.NONE);
    IdempotencyPolicy policy = IdempotencyPolicy.builder("signal.value").build();

    assertThat(idempotency.execute(policy, "k", () -> submit("a"))).isEqualTo("receipt-a-1");
    assertThat(Idempotency.lastCallReplayed()).isFalse();
    // docs/programmatic-api.md: replay signal (begin)
    String receipt = idempotency.execute(policy, "k", () -> submit("a"));
    boolean replayed =
        Idempotency.lastCallReplayed(); // true: a recorded outcome, the body did not run
    // docs/programmatic-api.md: replay signal (end)
    assertThat(receipt).isEqualTo("receipt-a-1");
    assertThat(replayed).isTrue();
    assertThat(idempotency.execute(policy, "other", () -> submit("b"))).isEqualTo("receipt-b-2");
    assertThat(Idempotency.lastCallReplayed()).isFalse();
  }

  @Test
  void aReplayedFailureIsAReplayAndARefusedCallIsNot() throws Exception {
    Idempotency idempotency = idempotency(ReplayHook.NONE);
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("signal.failure")
            .recordFailures(IllegalArgumentException.class)
            .build();
    java.util.concurrent.Callable<String> declined =
        () -> {
          runs.incrementAndGet();
          throw new IllegalArgumentException("card declined");
        };
    assertThatThrownBy(() -> idempotency.execute(policy, "k", "payload", declined))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Idempotency.lastCallReplayed()).isFalse();
    assertThatThrownBy(() -> idempotency.execute(policy, "k", "payload", declined))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Idempotency.lastCallReplayed()).isTrue();
    assertThat(runs).hasValue(1);

    assertThatThrownBy(() -> idempotency.execute(policy, "k", "another payload", declined))
        .isInstanceOf(IdempotencyKeyMismatchException.class);
    assertThat(Idempotency.lastCallReplayed()).isFalse();
  }

  @Test
  void aReplayNestedInAFirstRunDoesNotMarkTheOuterCall() throws Exception {
    Idempotency idempotency = idempotency(ReplayHook.NONE);
    IdempotencyPolicy inner = IdempotencyPolicy.builder("signal.inner").build();
    IdempotencyPolicy outer = IdempotencyPolicy.builder("signal.outer").build();
    idempotency.execute(inner, "k", () -> submit("inner"));

    String result =
        idempotency.execute(
            outer,
            "k",
            () -> {
              String nested = idempotency.execute(inner, "k", () -> submit("inner"));
              assertThat(Idempotency.lastCallReplayed()).isTrue();
              return "outer+" + nested;
            });

    assertThat(result).isEqualTo("outer+receipt-inner-1");
    assertThat(Idempotency.lastCallReplayed()).isFalse();
  }

  @Test
  void aStageReturningCallTellsWhetherItsStageHoldsARecordedOutcome() {
    Idempotency idempotency = idempotency(ReplayHook.NONE);
    IdempotencyPolicy policy = IdempotencyPolicy.builder("signal.stage").build();
    idempotency
        .executeAsync(policy, "k", () -> CompletableFuture.completedFuture(submit("s")))
        .toCompletableFuture()
        .join();
    assertThat(Idempotency.lastCallReplayed()).isFalse();
    assertThat(
            idempotency
                .executeAsync(policy, "k", () -> CompletableFuture.completedFuture(submit("s")))
                .toCompletableFuture()
                .join())
        .isEqualTo("receipt-s-1");
    assertThat(Idempotency.lastCallReplayed()).isTrue();
  }

  @Test
  void theDocumentedHookMarksReplayedStrings() throws Exception {
    // docs/programmatic-api.md: replay hook (begin)
    IdempotencyConfig config =
        IdempotencyConfig.builder()
            .defaultStore(store)
            .replayHook((scope, value) -> value instanceof String s ? s + " (replayed)" : value)
            .build();
    // docs/programmatic-api.md: replay hook (end)
    Idempotency idempotency = Idempotency.create(config);
    IdempotencyPolicy policy = IdempotencyPolicy.builder("hook.documented").build();
    assertThat(idempotency.execute(policy, "k", () -> submit("a"))).isEqualTo("receipt-a-1");
    assertThat(idempotency.execute(policy, "k", () -> submit("a")))
        .isEqualTo("receipt-a-1 (replayed)");
  }

  @Test
  void theHookAdjustsEveryReplayedValueButNotTheRecordNorTheFirstRun() throws Exception {
    List<String> scopes = new ArrayList<>();
    Idempotency idempotency =
        idempotency(
            (scope, value) -> {
              scopes.add(scope);
              return value + " (replayed)";
            });
    IdempotencyPolicy policy = IdempotencyPolicy.builder("hook.value").build();

    assertThat(idempotency.execute(policy, "k", () -> submit("a"))).isEqualTo("receipt-a-1");
    assertThat(idempotency.execute(policy, "k", () -> submit("a")))
        .isEqualTo("receipt-a-1 (replayed)");
    assertThat(idempotency.execute(policy, "k", () -> submit("a")))
        .isEqualTo("receipt-a-1 (replayed)");
    assertThat(scopes).containsExactly("hook.value", "hook.value");
    assertThat(runs).hasValue(1);
  }

  @Test
  void theHookAppliesToDeferredReplaysToo() {
    Idempotency idempotency = idempotency((scope, value) -> value + "*");
    IdempotencyPolicy policy = IdempotencyPolicy.builder("hook.deferred").build();
    assertThat(
            idempotency
                .executeDeferred(policy, "k", () -> CompletableFuture.completedFuture(submit("d")))
                .toCompletableFuture()
                .join())
        .isEqualTo("receipt-d-1");
    assertThat(
            idempotency
                .executeDeferred(policy, "k", () -> CompletableFuture.completedFuture(submit("d")))
                .toCompletableFuture()
                .join())
        .isEqualTo("receipt-d-1*");
  }

  @Test
  void aHookReturningAnotherTypeFailsTheCallNamingTheScope() throws Exception {
    Idempotency idempotency = idempotency((scope, value) -> 42);
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("hook.type").resultType(String.class).build();
    idempotency.execute(policy, "k", () -> submit("t"));

    assertThatThrownBy(() -> idempotency.execute(policy, "k", () -> submit("t")))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("java.lang.Integer")
        .hasMessageContaining("hook.type")
        .hasMessageContaining("java.lang.String");
    assertThat(runs).hasValue(1);
  }

  @Test
  void aHookThatThrowsFailsTheCallWithItsExceptionAndNothingRunsAgain() throws Exception {
    Idempotency idempotency =
        idempotency(
            (scope, value) -> {
              throw new IllegalStateException("refresh failed");
            });
    IdempotencyPolicy policy = IdempotencyPolicy.builder("hook.throws").build();
    idempotency.execute(policy, "k", () -> submit("x"));

    assertThatThrownBy(() -> idempotency.execute(policy, "k", () -> submit("x")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("refresh failed");
    assertThat(runs).hasValue(1);
  }
}
