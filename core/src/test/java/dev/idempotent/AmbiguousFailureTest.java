package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An unlisted failure may have had its effect: released (a retry runs), recorded as ambiguous
 * (every repeat is told the outcome is unknown, nothing runs twice), or blocking the key (every
 * repeat is answered as in progress until the ttl ends or an operator deletes the record).
 */
class AmbiguousFailureTest {
  private final TestStore store = new TestStore();
  private final Idempotency idempotency =
      Idempotency.create(IdempotencyConfig.builder().defaultStore(store).timeSource(store).build());
  private final AtomicInteger runs = new AtomicInteger();

  private String charge() {
    runs.incrementAndGet();
    throw new IllegalStateException("gateway timeout after the charge went through: card 4111");
  }

  private IdempotencyPolicy policy(String scope, OnAmbiguousFailure on) {
    return IdempotencyPolicy.builder(scope)
        .onAmbiguousFailure(on)
        .ttl(Duration.ofMinutes(5))
        .build();
  }

  @Test
  void releasedByDefaultSoThatARetryRuns() {
    IdempotencyPolicy policy = IdempotencyPolicy.builder("ambiguous.release").build();
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IllegalStateException.class);
    assertThat(runs).hasValue(2);
  }

  @Test
  void recordedAsAmbiguousEveryRepeatIsToldTheOutcomeIsUnknownAndNothingRunsTwice() {
    IdempotencyPolicy policy = policy("ambiguous.record", OnAmbiguousFailure.RECORD);
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IdempotencyAmbiguousOutcomeException.class)
        .hasMessageContaining("java.lang.IllegalStateException")
        .hasMessageNotContaining("4111")
        .satisfies(e -> assertThat(((IdempotencyException) e).httpStatus()).isEqualTo(500));
    assertThat(runs).hasValue(1);
  }

  @Test
  void blockingTheKeyAnswersEveryRepeatAsBlockedNotInProgressUntilAnOperatorDeletesTheRecord()
      throws Exception {
    IdempotencyPolicy policy = policy("ambiguous.block", OnAmbiguousFailure.BLOCK);
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IdempotencyBlockedException.class)
        .isNotInstanceOf(IdempotencyInProgressException.class)
        .hasMessageContaining("retrying does not help")
        .satisfies(
            e ->
                assertThat(((IdempotencyBlockedException) e).blockedFor())
                    .isPositive()
                    .isLessThanOrEqualTo(Duration.ofMinutes(5)));
    assertThat(runs).hasValue(1);

    assertThat(idempotency.delete("", "ambiguous.block", "k")).isTrue();
    assertThat(idempotency.execute(policy, "k", () -> "ran again")).isEqualTo("ran again");
  }

  @Test
  void aListedFailureThatCannotBeRecordedIsSettledAsAmbiguous() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("ambiguous.unrecordable")
            .recordFailures(Unrecordable.class)
            .onAmbiguousFailure(OnAmbiguousFailure.RECORD)
            .build();
    assertThatThrownBy(
            () ->
                idempotency.execute(
                    policy,
                    "k",
                    () -> {
                      runs.incrementAndGet();
                      throw new Unrecordable(1);
                    }))
        .isInstanceOf(Unrecordable.class);
    assertThatThrownBy(() -> idempotency.execute(policy, "k", this::charge))
        .isInstanceOf(IdempotencyAmbiguousOutcomeException.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void theNonBlockingPathSettlesAmbiguousFailuresTheSame() {
    IdempotencyPolicy policy = policy("ambiguous.deferred", OnAmbiguousFailure.RECORD);
    assertThatThrownBy(
            () ->
                idempotency
                    .executeDeferred(
                        policy,
                        "k",
                        () ->
                            CompletableFuture.<String>failedFuture(new IllegalStateException("x")))
                    .toCompletableFuture()
                    .join())
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () ->
                idempotency
                    .executeDeferred(policy, "k", () -> CompletableFuture.completedFuture("again"))
                    .toCompletableFuture()
                    .join())
        .hasCauseInstanceOf(IdempotencyAmbiguousOutcomeException.class);
  }

  /** A failure the codec cannot rebuild: no constructor taking a message. */
  public static final class Unrecordable extends RuntimeException {
    public Unrecordable(int code) {
      super("code " + code);
    }
  }
}
