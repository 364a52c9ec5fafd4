package dev.idempotent.internal;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnCancel;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol of {@link IdempotencyExecutor}, for work whose result arrives later (a Reactor
 * {@code Mono} or {@code Flux}, a Kotlin coroutine, a WebFlux exchange), on the store's
 * non-blocking face ({@link AsyncStores}): no step blocks or parks the calling thread.
 *
 * <pre>
 *   claim(key, fresh owner token, fingerprint, lease)                      claimAsync
 *     acquired     -> Claim.RUN: start lease renewal; the caller runs the work, then settles it
 *                       complete(value)  -> record COMPLETED(value) for ttl, then the value
 *                       fail(failure)    -> record it when listed, else release; then the failure
 *                       cancel(onCancel) -> release (RELEASE), or leave the claim to its lease (KEEP)
 *     COMPLETED    -> payload differs? IdempotencyKeyMismatchException
 *                     REPLAY: Claim.REPLAY with the recorded value or failure; REJECT: duplicate
 *     IN_PROGRESS  -> payload differs? IdempotencyKeyMismatchException
 *                     REJECT: IdempotencyInProgressException
 *                     WAIT:   awaitChangeAsync (a notification or a timer), claim again, until the wait timeout
 *   store fails before the work ran -> FAIL_CLOSED: IdempotencyStoreException; FAIL_OPEN: Claim.RUN unprotected
 *   store fails after the work ran  -> the caller still gets the value; recording is retried in the background
 * </pre>
 *
 * Every decision, message and event is the blocking executor's; a failure is always delivered
 * through the returned stage, never thrown.
 */
public final class DeferredCalls {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final long FIRST_POLL_NANOS = 10_000_000L;
  private static final long MAX_POLL_NANOS = 250_000_000L;

  private final IdempotencyExecutor executor;

  DeferredCalls(IdempotencyExecutor executor) {
    this.executor = executor;
  }

  /**
   * Claims {@code rawKey} in the plan's scope, waiting (without blocking) while another call holds
   * it when the plan says so.
   *
   * @param fingerprint the payload fingerprint, or {@code null} for no payload check
   * @return a stage with the claim, or failed with the library's exception
   */
  public CompletionStage<Claim> claim(OperationPlan plan, String rawKey, String fingerprint) {
    if (rawKey == null || rawKey.isBlank()) {
      return CompletableFuture.failedFuture(IdempotencyExecutor.blankKey(plan, rawKey));
    }
    RecordKey key;
    try {
      key = RecordKey.of(plan.scope, rawKey).fittedTo(plan.maxKeyLength);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    ObservedCall observed = executor.startCall(plan, key);
    CompletableFuture<Claim> decided = new CompletableFuture<>();
    new Attempts(plan, key, fingerprint, observed)
        .next()
        .whenComplete(
            (claim, error) -> {
              // ended before the caller hears of it; a claim that runs ends when it is settled
              if (error != null) {
                observed.end(unwrap(error));
                decided.completeExceptionally(unwrap(error));
                return;
              }
              if (claim.kind == Claim.Kind.REPLAY_VALUE) {
                observed.end(null);
              } else if (claim.kind == Claim.Kind.REPLAY_FAILURE) {
                observed.end(claim.replayedFailure);
              }
              decided.complete(claim);
            });
    return decided;
  }

  /** One call's claims, until one is decided. */
  private final class Attempts {
    final OperationPlan plan;
    final RecordKey key;
    final String fingerprint;
    final ObservedCall observed;
    final AsyncIdempotencyStore store;
    long deadline;
    long poll = FIRST_POLL_NANOS;

    IdempotencyExecutor executor() {
      return executor;
    }

    Attempts(OperationPlan plan, RecordKey key, String fingerprint, ObservedCall observed) {
      this.plan = plan;
      this.key = key;
      this.fingerprint = fingerprint;
      this.observed = observed;
      this.store = AsyncStores.of(plan.store);
    }

    CompletableFuture<Claim> next() {
      String owner = OwnerTokens.next();
      CompletionStage<ClaimResult> claimed;
      IdempotencyObserver.RoundTrip trip = observed.roundTrip("claim");
      try {
        claimed = store.claimAsync(key, owner, fingerprint, plan.lease);
      } catch (RuntimeException e) {
        claimed = CompletableFuture.failedFuture(e);
      }
      return then(
          claimed,
          (claim, error) -> {
            trip.end(error == null ? null : unwrap(error));
            return error != null ? claimFailed(unwrap(error)) : decide(claim, owner);
          });
    }

    private CompletionStage<Claim> decide(ClaimResult claim, String owner) {
      if (claim.isAcquired()) {
        if (claim.isTakeover()) {
          LOG.info("took over {}: the previous holder's lease had ended", key);
          executor.emit(IdempotencyEvent.Type.TAKEN_OVER, key, observed, null);
        }
        return CompletableFuture.completedFuture(new Claim(this, owner));
      }
      IdempotencyRecord existing = claim.existing();
      try {
        executor.checkPayload(key, fingerprint, existing, observed);
      } catch (IdempotencyKeyMismatchException e) {
        return failed(e);
      }
      if (existing.isCompleted()) {
        if (plan.onDuplicate == OnDuplicate.REJECT) {
          executor.emit(IdempotencyEvent.Type.REJECTED_DUPLICATE, key, observed, null);
          return failed(new DuplicateRequestException(key.scope(), key.redactedKey()));
        }
        return replay(existing);
      }
      if (plan.onInProgress == OnInProgress.REJECT) {
        executor.emit(IdempotencyEvent.Type.IN_PROGRESS, key, observed, null);
        return failed(
            new IdempotencyInProgressException(
                key.scope(), key.redactedKey(), existing.expiresIn(), null));
      }
      long now = executor.time.nanoTime();
      if (deadline == 0) {
        deadline = now + plan.waitTimeout.toNanos();
      }
      long remaining = deadline - now;
      if (remaining <= 0) {
        executor.emit(IdempotencyEvent.Type.IN_PROGRESS, key, observed, null);
        return failed(
            new IdempotencyInProgressException(
                key.scope(),
                key.redactedKey(),
                existing.expiresIn(),
                "waited " + plan.waitTimeout.toMillis() + " ms"));
      }
      long pause =
          Math.min(Math.min(remaining, poll), Math.max(existing.expiresIn().toNanos(), 1_000_000L));
      poll = Math.min(poll * 2, MAX_POLL_NANOS);
      CompletionStage<Void> changed;
      IdempotencyObserver.RoundTrip wait = observed.roundTrip("await");
      try {
        changed = store.awaitChangeAsync(key, Duration.ofNanos(pause));
      } catch (RuntimeException e) {
        changed = CompletableFuture.failedFuture(e);
      }
      return then(
          changed,
          (v, error) -> {
            wait.end(error == null ? null : unwrap(error));
            return error != null ? claimFailed(unwrap(error)) : next();
          });
    }

    private CompletionStage<Claim> replay(IdempotencyRecord record) {
      byte[] outcome = record.outcome();
      Object value;
      try {
        if (OutcomeCodec.isAmbiguous(outcome)) {
          return CompletableFuture.completedFuture(
              Claim.replayedFailure(executor.ambiguousReplay(key, record, observed)));
        }
        if (OutcomeCodec.isFailure(outcome)) {
          Throwable failure =
              executor.outcomes.decodeFailure(outcome, plan.loader, plan.recordFailures);
          executor.emit(IdempotencyEvent.Type.REPLAYED, key, observed, null);
          return CompletableFuture.completedFuture(Claim.replayedFailure(failure));
        }
        value = executor.outcomes.decodeValue(outcome, plan.valueType);
      } catch (RuntimeException e) {
        return failed(executor.unreadable(key, e, observed));
      }
      executor.emit(IdempotencyEvent.Type.REPLAYED, key, observed, null);
      try {
        return CompletableFuture.completedFuture(
            Claim.replayedValue(executor.replayedValue(plan, key, value)));
      } catch (RuntimeException e) {
        return failed(e);
      }
    }

    /** A claim or a wait failed before the work ran: the store-failure policy decides. */
    private CompletionStage<Claim> claimFailed(Throwable e) {
      if (e instanceof IdempotencyException && !(e instanceof IdempotencyStoreException)) {
        return failed(e);
      }
      executor.emit(IdempotencyEvent.Type.STORE_ERROR, key, observed, e);
      if (executor.config.storeFailurePolicy() == StoreFailurePolicy.FAIL_OPEN) {
        LOG.warn(
            "store failed for {}; running unprotected (fail-open): {}",
            key,
            IdempotencyExecutor.describe(e));
        executor.emit(IdempotencyEvent.Type.FAIL_OPEN, key, observed, e);
        return CompletableFuture.completedFuture(Claim.unprotected(observed));
      }
      return failed(
          new IdempotencyStoreException(
              "the idempotency store failed, so the call did not run (fail-closed): "
                  + IdempotencyExecutor.describe(e),
              key.scope(),
              key.redactedKey(),
              e));
    }
  }

  /**
   * The stage of the step that {@code next} gives once {@code stage} is done (with its value or its
   * failure): one callback instead of {@code handle} and {@code thenCompose}. A {@code next} that
   * throws fails the stage, as {@code handle} would; the stage never hangs.
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
            step = failed(t);
          }
          relay(step, decided);
        });
    return decided;
  }

  /**
   * Completes {@code into} as {@code step} completes, with its failure unwrapped, so that a claim's
   * stage fails with the library's exception itself, never a {@link CompletionException}. A step
   * that is already done (a replay, a refusal) completes {@code into} at once, on this thread.
   */
  private static <T> void relay(CompletionStage<T> step, CompletableFuture<T> into) {
    step.whenComplete(
        (value, error) -> {
          if (error != null) {
            into.completeExceptionally(unwrap(error));
          } else {
            into.complete(value);
          }
        });
  }

  private static <T> CompletionStage<T> failed(Throwable t) {
    return CompletableFuture.failedFuture(t);
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The answer of a non-blocking claim: either the caller runs the work and settles the claim with
   * exactly one of {@link #complete}, {@link #fail} or {@link #cancel}; or the key is completed and
   * {@link #replayedValue()} or {@link #replayedFailure()} is what a repeat gets.
   */
  public static final class Claim {
    enum Kind {
      RUN,
      UNPROTECTED,
      REPLAY_VALUE,
      REPLAY_FAILURE
    }

    final Kind kind;
    private final Attempts call;
    private final ObservedCall observed;
    private final String owner;
    private final LeaseRenewer.ActiveClaim lease;
    private final Object replayedValue;
    final Throwable replayedFailure;
    private final AtomicBoolean settled = new AtomicBoolean();
    private final AtomicBoolean warnedOverLimit = new AtomicBoolean();
    private int emptyListBytes = -1;

    private Claim(Attempts call, String owner) {
      this.kind = Kind.RUN;
      this.call = call;
      this.observed = call.observed;
      this.owner = owner;
      observed.ran();
      IdempotencyExecutor executor = call.executor();
      this.lease =
          executor.renewer.start(
              call.plan.store,
              call.plan.settings.store(),
              call.key,
              owner,
              call.plan.lease,
              executor.config.maxHold(),
              (type, error) -> executor.emit(type, call.key, call.observed, error));
      this.replayedValue = null;
      this.replayedFailure = null;
    }

    private Claim(Kind kind, Object value, Throwable failure, ObservedCall observed) {
      this.kind = kind;
      this.call = null;
      this.observed = observed;
      this.owner = null;
      this.lease = null;
      this.replayedValue = value;
      this.replayedFailure = failure;
    }

    static Claim replayedValue(Object value) {
      return new Claim(Kind.REPLAY_VALUE, value, null, null);
    }

    static Claim replayedFailure(Throwable failure) {
      return new Claim(Kind.REPLAY_FAILURE, null, failure, null);
    }

    /** Fail-open: the work runs unprotected, and settling it does nothing. */
    static Claim unprotected(ObservedCall observed) {
      return new Claim(Kind.UNPROTECTED, null, null, observed);
    }

    /**
     * Makes the call current on this thread while the work starts (a trace's span of the call is
     * the parent of the work's); close it when the work has been started.
     */
    public IdempotencyObserver.Scope openScope() {
      return observed == null ? IdempotencyObserver.Scope.NONE : observed.openScope();
    }

    /** An unprotected run ends its observation as it is settled; a replay's has ended already. */
    private <T> CompletionStage<T> endUnprotected(CompletionStage<T> settled, Throwable error) {
      if (kind == Kind.UNPROTECTED && settled.toCompletableFuture().isDone()) {
        observed.end(error);
      }
      return settled;
    }

    /** Ends the observation when {@code settling} is done, with what the caller gets thrown. */
    private <T> CompletionStage<T> ending(CompletionStage<T> settling) {
      CompletableFuture<T> ended = new CompletableFuture<>();
      settling.whenComplete(
          (v, error) -> {
            observed.end(error == null ? null : unwrap(error));
            if (error != null) {
              ended.completeExceptionally(error);
            } else {
              ended.complete(v);
            }
          });
      return ended;
    }

    /**
     * Whether the caller runs the work (the key was claimed, or the store is down and fail-open).
     */
    public boolean runs() {
      return kind == Kind.RUN || kind == Kind.UNPROTECTED;
    }

    /** Whether this is a replay of a recorded failure. */
    public boolean replaysFailure() {
      return kind == Kind.REPLAY_FAILURE;
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
      if (kind != Kind.RUN || !settled.compareAndSet(false, true)) {
        return endUnprotected(CompletableFuture.completedFuture(value), null);
      }
      return ending(recordValue(value, maxBytes));
    }

    private CompletionStage<Object> recordValue(Object value, int maxBytes) {
      IdempotencyExecutor executor = call.executor();
      executor.renewer.stop(lease);
      byte[] bytes;
      try {
        bytes = executor.outcomes.encodeValue(value, call.plan.valueType);
      } catch (RuntimeException e) {
        executor.reportUnrecordable(
            call.plan, call.key, value == null ? Void.class : value.getClass(), e, call.observed);
        return release().thenApply(ignored -> value);
      }
      if (bytes.length > maxBytes) {
        LOG.warn(
            "the outcome of {} is {} bytes, more than the {} a deferred result records: it is not"
                + " recorded and the key is released, so a repeat runs again",
            call.key,
            bytes.length,
            maxBytes);
        return release().thenApply(ignored -> value);
      }
      return record(bytes).thenApply(ignored -> value);
    }

    /**
     * The bytes {@code item} adds to the recorded outcome of a list of items (the plan's result
     * type): its encoding in a list of one, less that of an empty list.
     *
     * @throws RuntimeException when the codec cannot encode it
     */
    public int itemBytes(Object item) {
      if (kind != Kind.RUN) {
        return 0;
      }
      OutcomeCodec outcomes = call.executor().outcomes;
      if (emptyListBytes < 0) {
        emptyListBytes = outcomes.encodeValue(List.of(), call.plan.valueType).length;
      }
      return outcomes.encodeValue(List.of(item), call.plan.valueType).length - emptyListBytes;
    }

    /**
     * The work goes on, but its outcome will not be recorded ({@code why}): logged at WARN now; the
     * claim is held until the work ends, then {@link #abandon} releases it.
     */
    public void overLimit(String why) {
      if (kind != Kind.RUN || !warnedOverLimit.compareAndSet(false, true)) {
        return;
      }
      LOG.warn(
          "the outcome of {} will not be recorded ({}): what it gave so far is let go, the key is"
              + " released when it ends, and a repeat then runs again",
          call.key,
          why);
    }

    /**
     * The work ended but its outcome is not to be recorded ({@code why}, for the log): the key is
     * released, so a repeat runs again.
     */
    public CompletionStage<Void> abandon(String why) {
      if (kind != Kind.RUN || !settled.compareAndSet(false, true)) {
        return endUnprotected(CompletableFuture.completedFuture(null), null);
      }
      IdempotencyExecutor executor = call.executor();
      executor.renewer.stop(lease);
      if (!warnedOverLimit.get()) {
        LOG.warn(
            "the outcome of {} is not recorded ({}): the key is released, so a repeat runs again",
            call.key,
            why);
      }
      return ending(release().exceptionally(e -> null));
    }

    /**
     * The work failed with {@code failure}: records it when the plan lists it, else releases the
     * key. Completes with what the caller gets: {@code failure} itself (with a settling failure
     * suppressed in it), or the store's exception (with {@code failure} suppressed in it) when the
     * store must fail the call.
     */
    public CompletionStage<Throwable> fail(Throwable failure) {
      if (kind != Kind.RUN || !settled.compareAndSet(false, true)) {
        return endUnprotected(CompletableFuture.completedFuture(failure), failure);
      }
      IdempotencyExecutor executor = call.executor();
      executor.renewer.stop(lease);
      byte[] bytes = executor.failureOutcome(call.plan, call.key, failure, call.observed);
      CompletionStage<Void> settling = bytes == null ? release() : record(bytes);
      CompletionStage<Throwable> thrown =
          settling.handle(
              (ignored, error) -> {
                if (error == null) {
                  return failure;
                }
                Throwable cause = unwrap(error);
                if (cause instanceof IdempotencyStoreException callFails) {
                  if (callFails != failure) {
                    callFails.addSuppressed(failure);
                  }
                  return callFails;
                }
                if (cause != failure) {
                  failure.addSuppressed(cause);
                }
                return failure;
              });
      CompletableFuture<Throwable> ended = new CompletableFuture<>();
      thrown.whenComplete(
          (t, error) -> {
            observed.end(t != null ? t : unwrap(error));
            if (error != null) {
              ended.completeExceptionally(error);
            } else {
              ended.complete(t);
            }
          });
      return ended;
    }

    /**
     * The work was cancelled before it ended: with {@link OnCancel#RELEASE} the key is released,
     * with {@link OnCancel#KEEP} renewal stops and the claim ends with its lease.
     */
    public CompletionStage<Void> cancel(OnCancel onCancel) {
      if (kind != Kind.RUN || !settled.compareAndSet(false, true)) {
        return endUnprotected(CompletableFuture.completedFuture(null), null);
      }
      IdempotencyExecutor executor = call.executor();
      executor.renewer.stop(lease);
      executor.emit(IdempotencyEvent.Type.CANCELLED, call.key, call.observed, null);
      if (onCancel == OnCancel.KEEP) {
        LOG.debug(
            "the work of {} was cancelled; its claim ends with its lease (on-cancel keep)",
            call.key);
        observed.end(null);
        return CompletableFuture.completedFuture(null);
      }
      return ending(release().exceptionally(e -> null));
    }

    /** Records {@code bytes}; the stage fails only when the store must fail the call. */
    private CompletionStage<Void> record(byte[] bytes) {
      IdempotencyExecutor executor = call.executor();
      CompletionStage<Boolean> completed;
      IdempotencyObserver.RoundTrip trip = observed.roundTrip("complete");
      try {
        completed = call.store.completeAsync(call.key, owner, bytes, call.plan.ttl);
      } catch (RuntimeException e) {
        completed = CompletableFuture.failedFuture(e);
      }
      return completed
          .handle(
              (done, error) -> {
                trip.end(error == null ? null : unwrap(error));
                if (error == null) {
                  executor.completed(call.key, bytes, done, call.observed);
                  return CompletableFuture.<Void>completedFuture(null);
                }
                boolean release =
                    executor.completionFailed(
                        call.plan, call.key, owner, bytes, unwrap(error), call.observed);
                return release ? release() : CompletableFuture.<Void>completedFuture(null);
              })
          .thenCompose(stage -> stage);
    }

    /**
     * Releases the claim. A store's failure is logged and emitted; the stage fails only with a
     * failure that is not a {@code RuntimeException} (an {@code Error}), for the caller to keep.
     */
    private CompletionStage<Void> release() {
      IdempotencyExecutor executor = call.executor();
      CompletionStage<Boolean> released;
      IdempotencyObserver.RoundTrip trip = observed.roundTrip("release");
      try {
        released = call.store.releaseAsync(call.key, owner);
      } catch (RuntimeException e) {
        released = CompletableFuture.failedFuture(e);
      }
      return released.handle(
          (done, error) -> {
            Throwable cause = error == null ? null : unwrap(error);
            trip.end(cause);
            executor.released(call.key, done, cause, call.observed);
            if (cause != null && !(cause instanceof RuntimeException)) {
              throw new CompletionException(cause);
            }
            return null;
          });
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
                    ? failed(claim.replayedFailure())
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
                              : claim.fail(unwrap(error)).thenCompose(DeferredCalls::failed))
                  .thenCompose(stage -> stage);
            });
  }
}
