package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A policy built {@code withoutReplayHook()} (the adapters' own values) is replayed as recorded on
 * every entry point; any other policy goes through the hook.
 */
class ReplayHookOwnValuesTest {
  private final List<Object> hooked = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder()
              .defaultStore(new TestStore())
              .replayHook(
                  (scope, value) -> {
                    hooked.add(value);
                    return value + " (replayed)";
                  })
              .build());

  private String run() {
    return "run " + runs.incrementAndGet();
  }

  /** The four entry points, each called twice with one key: what the repeat got. */
  private List<Object> repeats(IdempotencyPolicy policy) throws Exception {
    List<Object> got = new java.util.ArrayList<>();
    for (int i = 0; i < 2; i++) {
      got.add(idempotency.execute(policy, "blocking", this::run));
    }
    for (int i = 0; i < 2; i++) {
      got.add(
          idempotency
              .executeAsync(policy, "async", () -> CompletableFuture.completedFuture(run()))
              .toCompletableFuture()
              .join());
    }
    for (int i = 0; i < 2; i++) {
      got.add(
          idempotency
              .executeDeferred(policy, "deferred", () -> CompletableFuture.completedFuture(run()))
              .toCompletableFuture()
              .join());
    }
    IdempotencyClaim first = idempotency.claim(policy, "claim").toCompletableFuture().join();
    first.complete(run()).toCompletableFuture().join();
    got.add(idempotency.claim(policy, "claim").toCompletableFuture().join().replayedValue());
    return got;
  }

  @Test
  void aPolicyWithoutTheHookIsReplayedAsRecorded() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("adapter.own")
            .resultType(String.class)
            .withoutReplayHook()
            .build();
    assertThat(policy.replayHooked()).isFalse();
    assertThat(repeats(policy))
        .containsExactly("run 1", "run 1", "run 2", "run 2", "run 3", "run 3", "run 4");
    assertThat(hooked).isEmpty();
  }

  @Test
  void anyOtherPolicyGoesThroughTheHook() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("method.result").resultType(String.class).build();
    assertThat(policy.replayHooked()).isTrue();
    assertThat(repeats(policy))
        .containsExactly(
            "run 1",
            "run 1 (replayed)",
            "run 2",
            "run 2 (replayed)",
            "run 3",
            "run 3 (replayed)",
            "run 4 (replayed)");
    assertThat(hooked).containsExactly("run 1", "run 2", "run 3", "run 4");
  }
}
