package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.RealClockStore;
import dev.idempotent.spi.ClaimResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A call starts in one place, reaches the store through its driver's face and ends once. */
class CallTest {
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final IdempotencyConfig config =
      IdempotencyConfig.builder()
          .defaultStore(new RealClockStore())
          .listener(e -> events.add(e.type()))
          .build();
  private final Protocol protocol = new Protocol(config, LeaseRenewer.shared());
  private final OperationPlan plan =
      OperationPlan.of(IdempotencyPolicy.builder("call").build(), config, true, null);
  private final List<String> roundTrips = new CopyOnWriteArrayList<>();

  private final Call.StoreIo io =
      new Call.StoreIo() {
        @Override
        public CompletionStage<ClaimResult> claim(Call call, String owner) {
          roundTrips.add("claim " + owner);
          throw new IllegalStateException("down");
        }

        @Override
        public CompletionStage<Boolean> complete(Call call, String owner, byte[] outcome) {
          roundTrips.add("complete " + owner);
          return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletionStage<Boolean> release(Call call, String owner) {
          roundTrips.add("release " + owner);
          return CompletableFuture.completedFuture(false);
        }
      };

  @Test
  void onlyTheFirstTerminalOutcomeOfACallCounts() {
    Call call = protocol.begin(plan, "k", null, io);
    assertThat(call.hasEnded()).isFalse();

    call.ended(Call.Outcome.REPLAYED, null);
    call.ended(Call.Outcome.EXECUTED, null);
    call.ended(Call.Outcome.CANCELLED, null);

    assertThat(call.hasEnded()).isTrue();
    assertThat(events).containsExactly(IdempotencyEvent.Type.REPLAYED);
  }

  @Test
  void anOutcomeWithoutAnEventEndsTheCallSilently() {
    Call call = protocol.begin(plan, "k", null, io);
    call.ended(Call.Outcome.RELEASED, null);
    call.ended(Call.Outcome.EXECUTED, null);
    assertThat(events).isEmpty();
  }

  @Test
  void everyRoundTripGoesThroughTheCallsStoreFaceAndAThrowBecomesAFailedStage() {
    Call call = protocol.begin(plan, "k", null, io);
    assertThat(call.claim("o1").toCompletableFuture()).isCompletedExceptionally();
    assertThat(call.complete("o1", new byte[] {'N'}).toCompletableFuture().join()).isTrue();
    assertThat(call.release("o1").toCompletableFuture().join()).isFalse();
    assertThat(roundTrips).containsExactly("claim o1", "complete o1", "release o1");
  }

  @Test
  void aBlankKeyIsRefusedBeforeTheCallStarts() {
    assertThatThrownBy(() -> protocol.begin(plan, " ", null, io))
        .isInstanceOf(IdempotencyKeyException.class);
    assertThat(roundTrips).isEmpty();
  }

  @Test
  void theWaitGrowsFromTenMillisecondsAndNeverOutlastsTheHoldersLease() {
    Call call = protocol.begin(plan, "k", null, io);
    assertThat(call.nextPauseNanos(Long.MAX_VALUE)).isEqualTo(10_000_000L);
    assertThat(call.nextPauseNanos(Long.MAX_VALUE)).isEqualTo(20_000_000L);
    assertThat(call.nextPauseNanos(5_000_000L)).isEqualTo(5_000_000L);
    assertThat(call.nextPauseNanos(0)).isEqualTo(1_000_000L);
  }
}
