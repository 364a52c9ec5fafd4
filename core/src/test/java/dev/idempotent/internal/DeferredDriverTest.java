package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnCancel;
import dev.idempotent.OnInProgress;
import dev.idempotent.RealClockStore;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The non-blocking protocol: the blocking executor's decisions, every failure through the stage,
 * waits that park no thread, and the settling of a claim by completion, failure or cancellation.
 */
class DeferredDriverTest {
  private final RealClockStore store = new RealClockStore();
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final IdempotencyConfig config =
      IdempotencyConfig.builder().defaultStore(store).listener(e -> events.add(e.type())).build();
  private final IdempotencyExecutor executor = new IdempotencyExecutor(config);
  private final DeferredDriver calls = executor.deferred();

  private OperationPlan plan(IdempotencyPolicy.Builder policy) {
    return OperationPlan.of(policy.resultType(String.class).build(), config, true, null);
  }

  private static <T> T join(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
  }

  @Test
  void theFirstCallRunsAndRecordsARepeatReplaysWithoutRunning() {
    OperationPlan plan = plan(IdempotencyPolicy.builder("deferred.first"));
    AtomicInteger runs = new AtomicInteger();

    Object first =
        join(
            calls.execute(
                plan,
                "k",
                null,
                () -> CompletableFuture.completedFuture("r" + runs.incrementAndGet())));
    Object again =
        join(
            calls.execute(
                plan,
                "k",
                null,
                () -> CompletableFuture.completedFuture("r" + runs.incrementAndGet())));

    assertThat(first).isEqualTo("r1");
    assertThat(again).isEqualTo("r1");
    assertThat(runs).hasValue(1);
    assertThat(events)
        .containsExactly(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
  }

  @Test
  void everyRefusalComesThroughTheStageNeverAsAThrow() {
    OperationPlan plan = plan(IdempotencyPolicy.builder("deferred.refusals"));
    assertThatThrownBy(() -> join(calls.claim(plan, " ", null)))
        .hasCauseInstanceOf(IdempotencyKeyException.class);
    join(calls.execute(plan, "k", "fp-1", () -> CompletableFuture.completedFuture("x")));
    assertThatThrownBy(() -> join(calls.claim(plan, "k", "fp-2")))
        .hasCauseInstanceOf(IdempotencyKeyMismatchException.class);

    DeferredDriver.Claim held = join(calls.claim(plan, "held", null));
    assertThat(held.runs()).isTrue();
    assertThatThrownBy(() -> join(calls.claim(plan, "held", null)))
        .hasCauseInstanceOf(IdempotencyInProgressException.class);
    join(held.complete("done"));
  }

  @Test
  void aWaiterGetsTheHoldersOutcomeWhenItCompletes() throws Exception {
    OperationPlan plan =
        plan(
            IdempotencyPolicy.builder("deferred.wait")
                .onInProgress(OnInProgress.WAIT)
                .waitTimeout(Duration.ofSeconds(5)));
    DeferredDriver.Claim holder = join(calls.claim(plan, "k", null));
    CompletionStage<DeferredDriver.Claim> waiter = calls.claim(plan, "k", null);
    Thread.sleep(100);
    assertThat(waiter.toCompletableFuture()).isNotDone();

    join(holder.complete("first"));

    DeferredDriver.Claim replay = join(waiter);
    assertThat(replay.runs()).isFalse();
    assertThat(replay.replayedValue()).isEqualTo("first");
  }

  @Test
  void aWaitEndsWithInProgressAfterTheWaitTimeout() {
    OperationPlan plan =
        plan(
            IdempotencyPolicy.builder("deferred.wait-timeout")
                .onInProgress(OnInProgress.WAIT)
                .waitTimeout(Duration.ofMillis(200)));
    DeferredDriver.Claim holder = join(calls.claim(plan, "k", null));
    long start = System.nanoTime();
    assertThatThrownBy(() -> join(calls.claim(plan, "k", null)))
        .hasCauseInstanceOf(IdempotencyInProgressException.class);
    assertThat(System.nanoTime() - start)
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
    join(holder.fail(new IllegalStateException("gave up")));
  }

  @Test
  void anUnlistedFailureReleasesTheKeyAndAListedOneIsRecordedAndReplayed() {
    OperationPlan plain = plan(IdempotencyPolicy.builder("deferred.fail"));
    IllegalStateException boom = new IllegalStateException("boom");
    assertThatThrownBy(
            () -> join(calls.execute(plain, "k", null, () -> CompletableFuture.failedFuture(boom))))
        .hasCause(boom);
    assertThat(store.read(RecordKey.of("deferred.fail", "k"))).isEmpty();

    OperationPlan listing =
        plan(
            IdempotencyPolicy.builder("deferred.listed")
                .recordFailures(IllegalArgumentException.class));
    assertThatThrownBy(
            () ->
                join(
                    calls.execute(
                        listing,
                        "k",
                        null,
                        () ->
                            CompletableFuture.failedFuture(
                                new IllegalArgumentException("declined")))))
        .hasCauseInstanceOf(IllegalArgumentException.class);
    DeferredDriver.Claim repeat = join(calls.claim(listing, "k", null));
    assertThat(repeat.replaysFailure()).isTrue();
    assertThat(repeat.replayedFailure())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("declined");
  }

  @Test
  void aCancelledClaimIsKeptUntilItsLeaseOrReleasedAsTheSettingSays() {
    OperationPlan keep =
        plan(IdempotencyPolicy.builder("deferred.keep").lease(Duration.ofMillis(300)));
    join(join(calls.claim(keep, "k", null)).cancel(OnCancel.KEEP));
    assertThatThrownBy(() -> join(calls.claim(keep, "k", null)))
        .hasCauseInstanceOf(IdempotencyInProgressException.class);

    OperationPlan release = plan(IdempotencyPolicy.builder("deferred.release"));
    join(join(calls.claim(release, "k", null)).cancel(OnCancel.RELEASE));
    assertThat(join(calls.claim(release, "k", null)).runs()).isTrue();
    assertThat(events).contains(IdempotencyEvent.Type.CANCELLED);
  }

  @Test
  void aStoreThatFailsBeforeTheWorkIsAStoreFailureOrRunsUnprotectedWhenFailOpen() {
    store.failClaims = new IllegalStateException("connection refused");
    OperationPlan plan = plan(IdempotencyPolicy.builder("deferred.down"));
    assertThatThrownBy(() -> join(calls.claim(plan, "k", null)))
        .hasCauseInstanceOf(IdempotencyStoreException.class);

    IdempotencyConfig open =
        IdempotencyConfig.from(config).storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN).build();
    DeferredDriver openCalls = new IdempotencyExecutor(open).deferred();
    OperationPlan openPlan =
        OperationPlan.of(IdempotencyPolicy.builder("deferred.open").build(), open, true, null);
    AtomicInteger runs = new AtomicInteger();
    assertThat(
            join(
                openCalls.execute(
                    openPlan,
                    "k",
                    null,
                    () -> CompletableFuture.completedFuture(runs.incrementAndGet()))))
        .isEqualTo(1);
    assertThat(
            join(
                openCalls.execute(
                    openPlan,
                    "k",
                    null,
                    () -> CompletableFuture.completedFuture(runs.incrementAndGet()))))
        .isEqualTo(2);
    store.failClaims = null;
  }

  @Test
  void workThatThrowsInsteadOfFailingItsStageIsSettledTheSame() {
    OperationPlan plan = plan(IdempotencyPolicy.builder("deferred.throws"));
    assertThatThrownBy(
            () ->
                join(
                    calls.execute(
                        plan,
                        "k",
                        null,
                        () -> {
                          throw new IllegalStateException("thrown");
                        })))
        .isInstanceOf(CompletionException.class)
        .hasMessageContaining("thrown");
    assertThat(join(calls.claim(plan, "k", null)).runs()).isTrue();
  }
}
