package dev.idempotent.internal;

import static dev.idempotent.internal.Protocol.LOG;

import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnCancel;
import dev.idempotent.spi.OutcomeNotRecordedException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A claim this caller holds, from the moment it was acquired until it is settled: the protocol's
 * one settlement, which both drivers use. Its lease is renewed ({@link LeaseRenewer}) from creation
 * until it is settled with exactly one of:
 *
 * <pre>
 *   complete(value)   encode; not encodable -> release (ERROR once per type, STORE_ERROR);
 *                     larger than the limit -> release (WARN); else record COMPLETED(value) for ttl
 *   fail(failure)     an UnrecordedOutcome -> release; listed in the plan's recorded failures and
 *                     encodable -> record it; else onAmbiguousFailure: RELEASE -> release,
 *                     RECORD -> record an ambiguous marker, BLOCK -> record a blocking marker
 *   cancel(onCancel)  RELEASE -> release; KEEP -> the claim ends with its lease (CANCELLED)
 *   abandon(why)      release (the work ended, its outcome is not to be kept)
 *
 *   record: the store answers true -> EXECUTED; false -> FENCED (another caller holds the key)
 *           fails: OutcomeNotRecordedException unconfirmed or failing the call -> the call fails
 *                  with IdempotencyStoreException (the method's failure suppressed in it);
 *                  one the backend can never accept -> release;
 *                  any other -> the caller gets its outcome; recording is retried in the background
 *                  ({@link CompletionRetries}) until the lease would end
 *   release: refused -> FENCED; fails -> STORE_ERROR (the claim ends with its lease)
 * </pre>
 *
 * Every step returns a stage: the deferred driver composes it, the blocking driver's store calls
 * answer at once, so the stage it gets is already done. A failure of a stage is only ever one the
 * caller is to get; a store's failure to release is logged and emitted, never thrown.
 */
final class Settlement {
  private final Call call;
  private final String owner;
  private final LeaseRenewer.ActiveClaim lease;
  private final AtomicBoolean settled = new AtomicBoolean();
  private final AtomicBoolean warnedOverLimit = new AtomicBoolean();
  private int emptyListBytes = -1;

  Settlement(Call call, String owner) {
    this.call = call;
    this.owner = owner;
    OperationPlan plan = call.plan;
    this.lease =
        call.protocol.renewer.start(
            plan.store,
            plan.settings.store(),
            call.key,
            owner,
            plan.lease,
            call.protocol.config.maxHold(),
            call::emit);
  }

  /** The owner token of this claim. */
  String owner() {
    return owner;
  }

  /** Whether this is the first settling step; stops renewal when it is. */
  private boolean settles() {
    if (!settled.compareAndSet(false, true)) {
      return false;
    }
    call.protocol.renewer.stop(lease);
    return true;
  }

  /**
   * The work returned {@code value}: records it, and completes with it once recorded, unless its
   * encoding is larger than {@code maxBytes} (then the key is released). The stage fails only when
   * the store must fail the call (the outcome belonged to the caller's transaction).
   */
  CompletionStage<Object> complete(Object value, int maxBytes) {
    if (!settles()) {
      return CompletableFuture.completedFuture(value);
    }
    byte[] bytes;
    try {
      bytes = call.protocol.outcomes.encodeValue(value, call.plan.valueType);
    } catch (RuntimeException e) {
      reportUnrecordable(value == null ? Void.class : value.getClass(), e);
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
    return record(bytes, Call.Outcome.EXECUTED).thenApply(ignored -> value);
  }

  /**
   * The work failed with {@code failure}: records it when the plan lists it, else settles it as the
   * plan's {@code OnAmbiguousFailure} says. Completes with what the caller gets: {@code failure}
   * itself (with a settling failure suppressed in it), or the store's exception (with {@code
   * failure} suppressed in it) when the store must fail the call. Never fails.
   */
  CompletionStage<Throwable> fail(Throwable failure) {
    if (!settles()) {
      return CompletableFuture.completedFuture(failure);
    }
    CompletionStage<Void> settling;
    try {
      byte[] bytes = failureOutcome(failure);
      settling = bytes == null ? release() : record(bytes, Call.Outcome.RECORDED_FAILURE);
    } catch (RuntimeException | Error e) {
      settling = CompletableFuture.failedFuture(e);
    }
    return settling.handle(
        (ignored, error) -> {
          if (error == null) {
            return failure;
          }
          Throwable cause = Protocol.unwrap(error);
          if (cause instanceof IdempotencyStoreException callFails) {
            // recording logged it; the business failure travels with it
            addSuppressed(callFails, failure);
            return callFails;
          }
          LOG.error(
              "settling the failed call of {} failed; the method's own exception is thrown, with"
                  + " this one suppressed in it: {}",
              call.key,
              Protocol.describe(cause));
          call.emit(IdempotencyEvent.Type.STORE_ERROR, cause);
          addSuppressed(failure, cause);
          return failure;
        });
  }

  /**
   * The work was cancelled before it ended: with {@link OnCancel#RELEASE} the key is released, with
   * {@link OnCancel#KEEP} the claim ends with its lease.
   */
  CompletionStage<Void> cancel(OnCancel onCancel) {
    if (!settles()) {
      return CompletableFuture.completedFuture(null);
    }
    call.ended(Call.Outcome.CANCELLED, null);
    if (onCancel == OnCancel.KEEP) {
      LOG.debug(
          "the work of {} was cancelled; its claim ends with its lease (on-cancel keep)", call.key);
      return CompletableFuture.completedFuture(null);
    }
    return release().exceptionally(e -> null);
  }

  /**
   * The bytes {@code item} adds to the recorded outcome of a list of items (the plan's result
   * type): its encoding in a list of one, less that of an empty list.
   *
   * @throws RuntimeException when the codec cannot encode it
   */
  int itemBytes(Object item) {
    OutcomeCodec outcomes = call.protocol.outcomes;
    if (emptyListBytes < 0) {
      emptyListBytes = outcomes.encodeValue(List.of(), call.plan.valueType).length;
    }
    return outcomes.encodeValue(List.of(item), call.plan.valueType).length - emptyListBytes;
  }

  /**
   * The work goes on, but its outcome will not be recorded ({@code why}): logged at WARN now; the
   * claim is held until the work ends, then {@link #abandon} releases it.
   */
  void overLimit(String why) {
    if (!warnedOverLimit.compareAndSet(false, true)) {
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
  CompletionStage<Void> abandon(String why) {
    if (!settles()) {
      return CompletableFuture.completedFuture(null);
    }
    if (!warnedOverLimit.get()) {
      LOG.warn(
          "the outcome of {} is not recorded ({}): the key is released, so a repeat runs again",
          call.key,
          why);
    }
    return release().exceptionally(e -> null);
  }

  /**
   * What to record for a call that failed with {@code failure}, or {@code null} to release the key:
   * a listed failure as itself; an unlisted one, or a listed one that cannot be recorded, as the
   * plan's {@code OnAmbiguousFailure} says.
   */
  private byte[] failureOutcome(Throwable failure) {
    if (failure instanceof UnrecordedOutcome) {
      return null;
    }
    OperationPlan plan = call.plan;
    if (plan.records(failure)) {
      try {
        return call.protocol.outcomes.encodeFailure(failure, plan.loader, plan.recordFailures);
      } catch (RuntimeException e) {
        reportUnrecordable(failure.getClass(), e);
      }
    }
    return switch (plan.onAmbiguousFailure) {
      case RELEASE -> null;
      case RECORD -> OutcomeCodec.encodeAmbiguous(failure, false);
      case BLOCK -> OutcomeCodec.encodeAmbiguous(failure, true);
    };
  }

  /**
   * An outcome that cannot be encoded is not recorded: every repeat would fail for the whole ttl.
   * One ERROR per scope, declared type and runtime class (the message names the type and the fix),
   * and a {@code STORE_ERROR} event per call.
   */
  private void reportUnrecordable(Class<?> type, RuntimeException e) {
    call.emit(IdempotencyEvent.Type.STORE_ERROR, e);
    if (call.protocol.firstUnrecordable(call.plan.scope, call.plan.valueType, type)) {
      LOG.error(
          "the outcome of {} (a {}) is not recorded, so this key is released and every repeat runs"
              + " the method again until this is fixed; the caller gets its outcome. {} (logged"
              + " once for this operation and type)",
          call.key,
          type.getName(),
          e.getMessage(),
          e);
    } else {
      LOG.debug(
          "the outcome of {} (a {}) is not recorded: {}", call.key, type.getName(), e.getMessage());
    }
  }

  /**
   * Records {@code bytes} ({@code recorded}: the outcome that then ends the call); the stage fails
   * only when the store must fail the call.
   */
  private CompletionStage<Void> record(byte[] bytes, Call.Outcome recorded) {
    return call.complete(owner, bytes)
        .handle(
            (done, error) -> {
              if (error == null) {
                completed(done, recorded);
                return CompletableFuture.<Void>completedFuture(null);
              }
              boolean release = completionFailed(bytes, Protocol.unwrap(error), recorded);
              return release ? release() : CompletableFuture.<Void>completedFuture(null);
            })
        .thenCompose(stage -> stage);
  }

  /** The store answered a completion: the outcome is recorded, or this holder was fenced. */
  private void completed(boolean recorded, Call.Outcome outcome) {
    if (recorded) {
      call.ended(outcome, null);
    } else {
      LOG.warn(
          "the outcome of {} was not recorded: the store no longer holds this caller's claim (its"
              + " lease ended and another caller took the key over, or the store dropped it); the"
              + " caller still gets its result",
          call.key);
      call.ended(Call.Outcome.FENCED, null);
    }
  }

  /**
   * A completion failed with {@code e} after the method ran. An outcome that belongs to the
   * caller's transaction fails the call: this throws the {@link IdempotencyStoreException} to
   * throw. An outcome the backend can never accept: returns {@code true}, release the key. Any
   * other failure: recording is retried in the background, and this returns {@code false}.
   */
  private boolean completionFailed(byte[] bytes, Throwable e, Call.Outcome recorded) {
    call.emit(IdempotencyEvent.Type.STORE_ERROR, e);
    var key = call.key;
    if (e instanceof OutcomeNotRecordedException notRecorded) {
      if (notRecorded.isUnconfirmed()) {
        LOG.warn("the outcome of {} was recorded but not confirmed: {}", key, e.getMessage());
        call.ended(Call.Outcome.NOT_RECORDED, e);
        throw new IdempotencyStoreException(
            "the method ran and its outcome was recorded, but not as durably as the store was"
                + " configured to make sure of, so the call fails: treat its outcome as unknown ("
                + notRecorded.getMessage()
                + ")",
            key.scope(),
            key.redactedKey(),
            notRecorded);
      }
      if (notRecorded.failsTheCall()) {
        LOG.warn(
            "the outcome of {} could not be recorded where it belongs, so the call fails and the"
                + " claim ends with its lease: {}",
            key,
            notRecorded.getMessage());
        call.ended(Call.Outcome.NOT_RECORDED, e);
        throw new IdempotencyStoreException(
            "the method ran but its outcome could not be recorded, so the call fails (never"
                + " recorded elsewhere; roll back its work, and a retry after the lease runs it"
                + " again): "
                + notRecorded.getMessage(),
            key.scope(),
            key.redactedKey(),
            notRecorded);
      }
      LOG.error(
          "the outcome of {} cannot be recorded, so the key is released and a repeat will run"
              + " again; the caller gets its result: {}",
          key,
          notRecorded.getMessage());
      return true;
    }
    LOG.warn(
        "recording the outcome of {} failed; the caller gets its result and recording is retried"
            + " in the background until the lease would end: {}",
        key,
        Protocol.describe(e));
    CompletionRetries.shared()
        .retry(
            key,
            call.plan.lease,
            () -> call.complete(owner, bytes),
            result -> {
              switch (result) {
                case RECORDED -> {
                  LOG.info("the outcome of {} was recorded on a later attempt", key);
                  call.ended(recorded, null);
                }
                case FENCED -> call.ended(Call.Outcome.FENCED, null);
                case GAVE_UP -> {
                  call.emit(IdempotencyEvent.Type.STORE_ERROR, e);
                  call.ended(Call.Outcome.NOT_RECORDED, e);
                }
              }
            });
    return false;
  }

  /**
   * Releases the claim. A store's failure is logged and emitted; the stage fails only with a
   * failure that is not a {@code RuntimeException} (an {@code Error}), for the caller to keep.
   */
  private CompletionStage<Void> release() {
    return call.release(owner)
        .handle(
            (done, error) -> {
              Throwable cause = error == null ? null : Protocol.unwrap(error);
              released(done, cause);
              if (cause != null && !(cause instanceof RuntimeException)) {
                throw new CompletionException(cause);
              }
              return null;
            });
  }

  /** The store answered a release ({@code released}), or failed it ({@code error}). */
  private void released(Boolean released, Throwable error) {
    if (error != null) {
      LOG.error(
          "releasing {} failed; the claim frees itself when its lease ends: {}",
          call.key,
          Protocol.describe(error));
      call.emit(IdempotencyEvent.Type.STORE_ERROR, error);
    } else if (!released) {
      LOG.warn("releasing {} was refused: another caller holds the key now", call.key);
      call.emit(IdempotencyEvent.Type.FENCED, null);
    }
    call.ended(Call.Outcome.RELEASED, error);
  }

  private static void addSuppressed(Throwable to, Throwable suppressed) {
    if (to != suppressed) {
      to.addSuppressed(suppressed);
    }
  }
}
