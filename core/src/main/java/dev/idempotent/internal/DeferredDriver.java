package dev.idempotent.internal;

import dev.idempotent.IdempotencyObserver;
import dev.idempotent.OnCancel;
import dev.idempotent.spi.ClaimResult;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The deferred driver: the protocol for work whose result arrives later (a {@code CompletionStage}
 * of {@code Idempotency.executeDeferred}, a Reactor {@code Mono} or {@code Flux}, a Kotlin
 * coroutine, a WebFlux exchange, a claim an adapter settles itself), on the store's non-blocking
 * face ({@link AsyncStores}): no step blocks or parks the calling thread.
 *
 * <pre>
 *   Protocol.begin (a blank key fails the stage)
 *   claimAsync (fresh owner token) -> ClaimDecision
 *     WAIT            -> awaitChangeAsync (a notification or a timer), claim again
 *     RUN             -> Claim with a Settlement (renewal started); the caller runs the work and
 *                        settles it: complete, fail, cancel or abandon
 *     RUN_UNPROTECTED -> Claim that runs and records nothing (fail-open); settling it ends the
 *                        call's observation
 *     REPLAY_VALUE    -> Claim with the value, through the replay hook
 *     REPLAY_FAILURE  -> Claim with the recorded failure
 *     REFUSE          -> the stage fails with it
 * </pre>
 *
 * What each step decides is written once, in {@link ClaimDecision} and {@link Settlement}; this
 * class only composes stages. A failure is always delivered through the returned stage, never
 * thrown.
 */
public final class DeferredDriver {
  /** The store's non-blocking face. */
  private static final Call.StoreIo NON_BLOCKING =
      new Call.StoreIo() {
        @Override
        public CompletionStage<ClaimResult> claim(Call call, String owner) {
          return AsyncStores.of(call.plan.store)
              .claimAsync(call.key, owner, call.fingerprint, call.plan.lease);
        }

        @Override
        public CompletionStage<Boolean> complete(Call call, String owner, byte[] outcome) {
          return AsyncStores.of(call.plan.store)
              .completeAsync(call.key, owner, outcome, call.plan.ttl);
        }

        @Override
        public CompletionStage<Boolean> release(Call call, String owner) {
          return AsyncStores.of(call.plan.store).releaseAsync(call.key, owner);
        }
      };

  private final Protocol protocol;

  DeferredDriver(Protocol protocol) {
    this.protocol = protocol;
  }

  /**
   * Claims {@code rawKey} in the plan's scope, waiting (without blocking) while another call holds
   * it when the plan says so.
   *
   * @param fingerprint the payload fingerprint, or {@code null} for no payload check
   * @return a stage with the claim, or failed with the library's exception
   */
  public CompletionStage<Claim> claim(OperationPlan plan, String rawKey, String fingerprint) {
    Call call;
    try {
      call = protocol.begin(plan, rawKey, fingerprint, NON_BLOCKING);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return attempt(call);
  }

  /** One claim of {@code call}, then what its decision says. */
  private CompletionStage<Claim> attempt(Call call) {
    String owner = OwnerTokens.next();
    return then(
        call.claim(owner),
        (answer, error) ->
            act(
                call,
                owner,
                error != null
                    ? ClaimDecision.storeFailed(call, Protocol.unwrap(error))
                    : ClaimDecision.decide(call, answer, token -> false)));
  }

  private CompletionStage<Claim> act(Call call, String owner, ClaimDecision decision) {
    switch (decision.action()) {
      case RUN:
        return CompletableFuture.completedFuture(
            new Claim(call.held(owner), null, null, true, null));
      case RUN_UNPROTECTED:
        return CompletableFuture.completedFuture(new Claim(null, null, null, true, call));
      case REPLAY_VALUE:
        try {
          Object value = call.replayedValue(decision.value());
          return CompletableFuture.completedFuture(new Claim(null, value, null, false, null));
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      case REPLAY_FAILURE:
        return CompletableFuture.completedFuture(
            new Claim(null, null, decision.failure(), false, null));
      case WAIT:
        CompletionStage<Void> changed;
        try {
          changed = call.awaitChangeAsync(decision.pauseNanos());
        } catch (RuntimeException e) {
          changed = CompletableFuture.failedFuture(e);
        }
        return then(
            changed,
            (v, error) ->
                error != null
                    ? act(call, null, ClaimDecision.storeFailed(call, Protocol.unwrap(error)))
                    : attempt(call));
      default:
        return CompletableFuture.failedFuture(decision.failure());
    }
  }

  /**
   * The stage of the step that {@code next} gives once {@code stage} is done (with its value or its
   * failure), its failure unwrapped, so that a claim's stage fails with the library's exception
   * itself, never a {@code CompletionException}. A {@code next} that throws fails the stage; the
   * stage never hangs. A step that is already done (a replay, a refusal) completes the stage at
   * once, on this thread.
   */
  private static <V, T> CompletableFuture<T> then(
      CompletionStage<V> stage, BiFunction<? super V, Throwable, CompletionStage<T>> next) {
    CompletableFuture<T> decided = new CompletableFuture<>();
    stage.whenComplete(
        (value, error) -> {
          CompletionStage<T> step;
          try {
            step = next.apply(value, error);
          } catch (Throwable t) {
            step = CompletableFuture.failedFuture(t);
          }
          pass(step, decided);
        });
    return decided;
  }

  /**
   * Completes {@code decided} as {@code step} completes, its failure unwrapped; a step that is done
   * already (every decision but a wait) is passed on at once, without a stage of its own.
   */
  private static <T> void pass(CompletionStage<T> step, CompletableFuture<T> decided) {
    if (step instanceof CompletableFuture<T> done && done.isDone()) {
      T value;
      try {
        value = done.join();
      } catch (CompletionException | CancellationException e) {
        decided.completeExceptionally(Protocol.unwrap(e));
        return;
      }
      decided.complete(value);
      return;
    }
    step.whenComplete(
        (v, e) -> {
          if (e != null) {
            decided.completeExceptionally(Protocol.unwrap(e));
          } else {
            decided.complete(v);
          }
        });
  }

  /**
   * The answer of a non-blocking claim: either the caller runs the work and settles the claim with
   * exactly one of {@link #complete}, {@link #fail} or {@link #cancel}; or the key is completed and
   * {@link #replayedValue()} or {@link #replayedFailure()} is what a repeat gets. A claim that
   * replays settles nothing; one that runs unprotected (fail-open) records nothing, and settling it
   * only ends the call's observation (which covers the work).
   */
  public static final class Claim {
    private final Settlement held;
    private final Object replayedValue;
    private final Throwable replayedFailure;
    private final boolean runs;

    /** The call of a claim that runs unprotected (fail-open), or {@code null}. */
    private final Call unprotected;

    private Claim(
        Settlement held,
        Object replayedValue,
        Throwable replayedFailure,
        boolean runs,
        Call unprotected) {
      this.held = held;
      this.replayedValue = replayedValue;
      this.replayedFailure = replayedFailure;
      this.runs = runs;
      this.unprotected = unprotected;
    }

    /** Ends the observation of a claim that ran unprotected; {@code failure} may be null. */
    private void unprotectedEnded(Throwable failure) {
      if (unprotected != null) {
        unprotected.unprotectedEnded(failure);
      }
    }

    /**
     * Whether the caller runs the work (the key was claimed, or the store is down and fail-open).
     */
    public boolean runs() {
      return runs;
    }

    /**
     * Makes the call current on this thread while the work starts, so that a trace shows the work
     * inside the call; close it once the work has started. Does nothing for a claim that replays.
     */
    public IdempotencyObserver.Scope openScope() {
      if (held != null) {
        return held.openScope();
      }
      return unprotected == null ? IdempotencyObserver.Scope.NONE : unprotected.openScope();
    }

    /** Whether this is a replay of a recorded failure. */
    public boolean replaysFailure() {
      return replayedFailure != null;
    }

    /** The recorded value a repeat gets ({@code null} for a recorded {@code null}). */
    public Object replayedValue() {
      return replayedValue;
    }

    /** The recorded failure a repeat gets, rethrown. */
    public Throwable replayedFailure() {
      return replayedFailure;
    }

    /**
     * The work returned {@code value}: records it, and completes with it once recorded. It fails
     * only when the store must fail the call (the outcome belonged to the caller's transaction).
     */
    public CompletionStage<Object> complete(Object value) {
      return complete(value, Integer.MAX_VALUE);
    }

    /**
     * {@link #complete(Object)}, unless the encoded outcome is larger than {@code maxBytes}: then
     * it is not recorded and the key is released (logged at WARN), and the caller still gets the
     * value.
     */
    public CompletionStage<Object> complete(Object value, int maxBytes) {
      if (held == null) {
        unprotectedEnded(null);
        return CompletableFuture.completedFuture(value);
      }
      return held.complete(value, maxBytes);
    }

    /**
     * The bytes {@code item} adds to the recorded outcome of a list of items (the plan's result
     * type): its encoding in a list of one, less that of an empty list.
     *
     * @throws RuntimeException when the codec cannot encode it
     */
    public int itemBytes(Object item) {
      return held == null ? 0 : held.itemBytes(item);
    }

    /**
     * The work goes on, but its outcome will not be recorded ({@code why}): logged at WARN now; the
     * claim is held until the work ends, then {@link #abandon} releases it.
     */
    public void overLimit(String why) {
      if (held != null) {
        held.overLimit(why);
      }
    }

    /**
     * The work ended but its outcome is not to be recorded ({@code why}, for the log): the key is
     * released, so a repeat runs again.
     */
    public CompletionStage<Void> abandon(String why) {
      if (held == null) {
        unprotectedEnded(null);
        return CompletableFuture.completedFuture(null);
      }
      return held.abandon(why);
    }

    /**
     * The work failed with {@code failure}: records it when the plan lists it, else releases the
     * key. Completes with what the caller gets: {@code failure} itself (with a settling failure
     * suppressed in it), or the store's exception (with {@code failure} suppressed in it) when the
     * store must fail the call.
     */
    public CompletionStage<Throwable> fail(Throwable failure) {
      if (held == null) {
        unprotectedEnded(failure);
        return CompletableFuture.completedFuture(failure);
      }
      return held.fail(failure);
    }

    /**
     * The work was cancelled before it ended: with {@link OnCancel#RELEASE} the key is released,
     * with {@link OnCancel#KEEP} renewal stops and the claim ends with its lease.
     */
    public CompletionStage<Void> cancel(OnCancel onCancel) {
      if (held == null) {
        unprotectedEnded(null);
        return CompletableFuture.completedFuture(null);
      }
      return held.cancel(onCancel);
    }
  }

  /** Runs {@code work} as one attempt of a call: claim, run or replay, settle. */
  public CompletionStage<Object> execute(
      OperationPlan plan,
      String rawKey,
      String fingerprint,
      Supplier<? extends CompletionStage<?>> work) {
    return claim(plan, rawKey, fingerprint)
        .thenCompose(
            claim -> {
              if (!claim.runs()) {
                return claim.replaysFailure()
                    ? CompletableFuture.failedFuture(claim.replayedFailure())
                    : CompletableFuture.completedFuture(claim.replayedValue());
              }
              CompletionStage<?> running;
              try (IdempotencyObserver.Scope scope = claim.openScope()) {
                running = work.get();
              } catch (RuntimeException | Error e) {
                running = CompletableFuture.failedFuture(e);
              }
              return running
                  .handle(
                      (value, error) ->
                          error == null
                              ? claim.complete(value)
                              : claim
                                  .fail(Protocol.unwrap(error))
                                  .thenCompose(CompletableFuture::<Object>failedFuture))
                  .thenCompose(stage -> stage);
            });
  }
}
