package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.spi.OutcomeNotRecordedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * Hardening item 5: when settling a failed call fails too, the method's own exception still reaches
 * the caller (thrown itself with the settling failure suppressed, or suppressed in the store's
 * exception where the store must fail the call). Item 6: a {@code null} payload is a payload on the
 * asynchronous path as on the synchronous one.
 */
class MethodFailureKeptTest {
  public static final class PaymentDeclined extends RuntimeException {
    public PaymentDeclined(String message) {
      super(message);
    }
  }

  private final TestStore store = new TestStore();
  private final Idempotency idempotency =
      Idempotency.create(IdempotencyConfig.builder().defaultStore(store).timeSource(store).build());

  @Test
  void anErrorFromTheReleaseIsSuppressedInTheMethodsException() {
    IdempotencyPolicy policy = IdempotencyPolicy.builder("failures.release").build();
    AssertionError releaseBroke = new AssertionError("release broke");
    store.failRelease = releaseBroke;
    IllegalStateException business = new IllegalStateException("out of stock");

    Throwable thrown =
        catchThrowable(
            () ->
                idempotency.execute(
                    policy,
                    "k1",
                    () -> {
                      throw business;
                    }));

    assertThat(thrown).isSameAs(business);
    assertThat(thrown.getSuppressed()).containsExactly(releaseBroke);
  }

  @Test
  void aListedFailureThatCannotBeRecordedInTheCallersTransactionTravelsWithTheStoreException() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("failures.record").recordFailures(PaymentDeclined.class).build();
    store.failComplete =
        OutcomeNotRecordedException.failingTheCall("the transaction was rolled back", null);
    PaymentDeclined declined = new PaymentDeclined("card declined");

    Throwable thrown =
        catchThrowable(
            () ->
                idempotency.execute(
                    policy,
                    "k2",
                    () -> {
                      throw declined;
                    }));

    assertThat(thrown)
        .isInstanceOf(IdempotencyStoreException.class)
        .hasCauseInstanceOf(OutcomeNotRecordedException.class);
    assertThat(thrown.getSuppressed()).containsExactly(declined);
  }

  @Test
  void aFailedStageKeepsItsFailureWhenTheReleaseFails() {
    IdempotencyPolicy policy = IdempotencyPolicy.builder("failures.async").build();
    AssertionError releaseBroke = new AssertionError("release broke");
    store.failRelease = releaseBroke;
    IllegalStateException business = new IllegalStateException("out of stock");

    CompletionStage<String> stage =
        idempotency.executeAsync(policy, "k3", () -> CompletableFuture.failedFuture(business));

    Throwable thrown = catchThrowable(() -> stage.toCompletableFuture().join());
    assertThat(thrown).isInstanceOf(CompletionException.class).hasCause(business);
    assertThat(business.getSuppressed()).containsExactly(releaseBroke);
  }

  @Test
  void aNullPayloadIsCheckedOnTheAsynchronousPathAsOnTheSynchronousOne() throws Exception {
    IdempotencyPolicy sync = IdempotencyPolicy.builder("payload.sync").build();
    IdempotencyPolicy async = IdempotencyPolicy.builder("payload.async").build();

    idempotency.execute(sync, "k", null, () -> "first");
    assertThatThrownBy(() -> idempotency.execute(sync, "k", "other", () -> "second"))
        .isInstanceOf(IdempotencyKeyMismatchException.class);

    idempotency
        .executeAsync(async, "k", null, () -> CompletableFuture.completedFuture("first"))
        .toCompletableFuture()
        .join();
    CompletionStage<String> repeat =
        idempotency.executeAsync(
            async, "k", "other", () -> CompletableFuture.completedFuture("second"));
    assertThatThrownBy(() -> repeat.toCompletableFuture().join())
        .hasCauseInstanceOf(IdempotencyKeyMismatchException.class);
  }
}
