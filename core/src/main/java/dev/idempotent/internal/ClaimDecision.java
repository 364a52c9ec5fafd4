package dev.idempotent.internal;

import static dev.idempotent.internal.Protocol.LOG;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyAmbiguousOutcomeException;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.util.function.Predicate;

/**
 * What a claim's answer means for the call that made it: the protocol's one decision, which both
 * drivers ({@link IdempotencyExecutor}, {@link DeferredDriver}) carry out. A call claims its key
 * with a fresh owner token, its payload fingerprint and the plan's lease; the store answers with a
 * {@link ClaimResult}, or fails. This is the reference table; the code below is written row by row
 * from it.
 *
 * <pre>
 * claim answer                      policy / condition               action            event(s)
 * --------------------------------- -------------------------------- ----------------- -----------------------
 * acquired                          -                                RUN               TAKEN_OVER if the
 *                                                                                      previous lease had ended
 * in progress, held by this caller  (blocking: a claim its own       REFUSE            -
 *                                   thread runs)                     IdempotencyConfigurationException
 * completed or in progress,         fingerprint of the same format   REFUSE            MISMATCH
 *   another payload                 version                          IdempotencyKeyMismatchException
 *                                   of another version: not compared (go on)           PAYLOAD_CHECK_SKIPPED
 * completed                         onDuplicate REJECT               REFUSE            REJECTED_DUPLICATE
 *                                                                    DuplicateRequestException
 * completed: a value                onDuplicate REPLAY               REPLAY_VALUE      REPLAYED
 * completed: a recorded failure     onDuplicate REPLAY               REPLAY_FAILURE    REPLAYED
 * completed: an ambiguous failure   onDuplicate REPLAY               REPLAY_FAILURE    REPLAYED
 *   (onAmbiguousFailure RECORD)                                      IdempotencyAmbiguousOutcomeException
 * completed: a blocked key          onDuplicate REPLAY               REPLAY_FAILURE    IN_PROGRESS
 *   (onAmbiguousFailure BLOCK)                                       IdempotencyBlockedException
 * completed: cannot be read back    -                                REFUSE            STORE_ERROR
 *                                                                    IdempotencyOutcomeException
 * in progress                       onInProgress REJECT              REFUSE            IN_PROGRESS
 *                                                                    IdempotencyInProgressException
 * in progress                       onInProgress WAIT, time left     WAIT (pause)      -
 * in progress                       onInProgress WAIT, timed out     REFUSE            IN_PROGRESS
 *                                                                    IdempotencyInProgressException
 * claim or wait failed:             -                                REFUSE (as is)    -
 *   a library exception other than a store exception
 * claim or wait failed              FAIL_OPEN                        RUN_UNPROTECTED   STORE_ERROR, FAIL_OPEN
 * claim or wait failed              FAIL_CLOSED                      REFUSE            STORE_ERROR
 *                                                                    IdempotencyStoreException
 * </pre>
 *
 * <p>The actions: RUN, the caller holds the claim and runs the method, then settles it ({@link
 * Settlement}: complete, recorded failure or release); RUN_UNPROTECTED, the method runs and nothing
 * is recorded; REPLAY_VALUE, the caller gets the recorded value, through the replay hook ({@link
 * Call#replayedValue}); REPLAY_FAILURE, the caller gets the recorded failure; REFUSE, the caller
 * gets {@link #failure()} and the method does not run; WAIT, the driver waits for a change of the
 * key (at most {@link #pauseNanos()}: 10 ms doubling up to 250 ms, never past the holder's lease or
 * the wait timeout) and claims again with a fresh owner token.
 *
 * <p>What only a driver can know stays with it: the blocking driver turns a failure caused by an
 * interrupt of the calling thread into {@code IdempotencyInterruptedException} (and releases a
 * claim that may have reached the store) before this table is consulted. Every row but RUN and WAIT
 * ends the call ({@link Call#ended}); a RUN ends when its {@link Settlement} does.
 */
final class ClaimDecision {
  /** What the driver does next. */
  enum Action {
    RUN,
    RUN_UNPROTECTED,
    REPLAY_VALUE,
    REPLAY_FAILURE,
    REFUSE,
    WAIT
  }

  private final Action action;
  private final Object value;
  private final Throwable failure;
  private final long pauseNanos;

  private ClaimDecision(Action action, Object value, Throwable failure, long pauseNanos) {
    this.action = action;
    this.value = value;
    this.failure = failure;
    this.pauseNanos = pauseNanos;
  }

  Action action() {
    return action;
  }

  /** The recorded value (before the replay hook) of a REPLAY_VALUE. */
  Object value() {
    return value;
  }

  /** The failure the caller gets: of a REPLAY_FAILURE or a REFUSE. */
  Throwable failure() {
    return failure;
  }

  /** The longest pause of a WAIT before claiming again. */
  long pauseNanos() {
    return pauseNanos;
  }

  private static ClaimDecision of(Action action) {
    return new ClaimDecision(action, null, null, 0);
  }

  private static ClaimDecision refuse(Call call, Call.Outcome outcome, Throwable failure) {
    call.ended(outcome, failure);
    return new ClaimDecision(Action.REFUSE, null, failure, 0);
  }

  /**
   * The decision on the store's answer {@code claim}.
   *
   * @param heldByCaller whether an owner token is that of a claim this caller itself runs (a call
   *     re-entered from inside its own method)
   */
  static ClaimDecision decide(Call call, ClaimResult claim, Predicate<String> heldByCaller) {
    RecordKey key = call.key;
    if (claim.isAcquired()) {
      if (claim.isTakeover()) {
        LOG.info("took over {}: the previous holder's lease had ended", key);
        call.emit(IdempotencyEvent.Type.TAKEN_OVER, null);
      }
      return of(Action.RUN);
    }
    IdempotencyRecord existing = claim.existing();
    if (!existing.isCompleted() && heldByCaller.test(existing.ownerToken())) {
      return refuse(call, Call.Outcome.REFUSED, reentered(key));
    }
    if (payloadDiffers(call, existing)) {
      return refuse(
          call,
          Call.Outcome.PAYLOAD_MISMATCH,
          new IdempotencyKeyMismatchException(key.scope(), key.redactedKey()));
    }
    OperationPlan plan = call.plan;
    if (existing.isCompleted()) {
      if (plan.onDuplicate == OnDuplicate.REJECT) {
        return refuse(
            call,
            Call.Outcome.REJECTED_DUPLICATE,
            new DuplicateRequestException(key.scope(), key.redactedKey()));
      }
      return replay(call, existing);
    }
    if (plan.onInProgress == OnInProgress.REJECT) {
      return refuse(
          call,
          Call.Outcome.IN_PROGRESS,
          new IdempotencyInProgressException(
              key.scope(), key.redactedKey(), existing.expiresIn(), null));
    }
    long pause = call.nextPauseNanos(existing.expiresIn().toNanos());
    if (pause <= 0) {
      return refuse(
          call,
          Call.Outcome.IN_PROGRESS,
          new IdempotencyInProgressException(
              key.scope(),
              key.redactedKey(),
              existing.expiresIn(),
              "waited " + plan.waitTimeout.toMillis() + " ms"));
    }
    return new ClaimDecision(Action.WAIT, null, null, pause);
  }

  /**
   * The decision on a claim or a wait that failed with {@code e} before the method ran (and not
   * because the calling thread was interrupted).
   */
  static ClaimDecision storeFailed(Call call, Throwable e) {
    if (e instanceof IdempotencyException && !(e instanceof IdempotencyStoreException)) {
      return refuse(call, Call.Outcome.REFUSED, e);
    }
    RecordKey key = call.key;
    call.emit(IdempotencyEvent.Type.STORE_ERROR, e);
    if (call.protocol.config.storeFailurePolicy() == StoreFailurePolicy.FAIL_OPEN) {
      LOG.warn(
          "store failed for {}; running unprotected (fail-open): {}", key, Protocol.describe(e));
      call.ended(Call.Outcome.STORE_FAILURE_OPEN, e);
      return of(Action.RUN_UNPROTECTED);
    }
    return refuse(
        call,
        Call.Outcome.STORE_FAILURE_CLOSED,
        new IdempotencyStoreException(
            "the idempotency store failed, so the call did not run (fail-closed): "
                + Protocol.describe(e),
            key.scope(),
            key.redactedKey(),
            e));
  }

  /**
   * Compares the call's payload fingerprint with the record's: {@code true} for a different
   * payload; a record fingerprinted by another version of the format is not compared ({@code
   * PAYLOAD_CHECK_SKIPPED}).
   */
  private static boolean payloadDiffers(Call call, IdempotencyRecord existing) {
    String fingerprint = call.fingerprint;
    if (fingerprint == null
        || existing.fingerprint() == null
        || fingerprint.equals(existing.fingerprint())) {
      return false;
    }
    if (!Fingerprints.sameVersion(fingerprint, existing.fingerprint())) {
      call.emit(IdempotencyEvent.Type.PAYLOAD_CHECK_SKIPPED, null);
      return false;
    }
    return true;
  }

  /** What a repeat of a completed key gets: its recorded value or failure, decoded. */
  private static ClaimDecision replay(Call call, IdempotencyRecord record) {
    byte[] outcome = record.outcome();
    OperationPlan plan = call.plan;
    OutcomeCodec outcomes = call.protocol.outcomes;
    try {
      if (OutcomeCodec.isAmbiguous(outcome)) {
        String type = OutcomeCodec.ambiguousFailureType(outcome);
        RecordKey key = call.key;
        if (OutcomeCodec.isBlocked(outcome)) {
          IdempotencyException blocked =
              new IdempotencyBlockedException(
                  key.scope(), key.redactedKey(), record.expiresIn(), type);
          call.ended(Call.Outcome.BLOCKED, null);
          return new ClaimDecision(Action.REPLAY_FAILURE, null, blocked, 0);
        }
        IdempotencyException ambiguous =
            new IdempotencyAmbiguousOutcomeException(key.scope(), key.redactedKey(), type);
        call.ended(Call.Outcome.REPLAYED, null);
        return new ClaimDecision(Action.REPLAY_FAILURE, null, ambiguous, 0);
      }
      if (OutcomeCodec.isFailure(outcome)) {
        Throwable failure = outcomes.decodeFailure(outcome, plan.loader, plan.recordFailures);
        call.ended(Call.Outcome.REPLAYED, null);
        return new ClaimDecision(Action.REPLAY_FAILURE, null, failure, 0);
      }
      Object value = outcomes.decodeValue(outcome, plan.valueType);
      call.ended(Call.Outcome.REPLAYED, null);
      return new ClaimDecision(Action.REPLAY_VALUE, value, null, 0);
    } catch (RuntimeException e) {
      return refuse(call, Call.Outcome.UNREADABLE, unreadable(call.key, e));
    }
  }

  /**
   * A completed record whose outcome cannot be read back fails this call; the method does not run
   * again.
   */
  private static IdempotencyOutcomeException unreadable(RecordKey key, RuntimeException e) {
    LOG.error(
        "the recorded outcome of {} cannot be read back, so this call fails and the method does not"
            + " run again: {}",
        key,
        e.getMessage());
    return new IdempotencyOutcomeException(
        "the recorded outcome cannot be read back, so the call fails without running the method"
            + " again (that could repeat its effect): "
            + e.getMessage(),
        key.scope(),
        key.redactedKey(),
        e);
  }

  private static IdempotencyConfigurationException reentered(RecordKey key) {
    return new IdempotencyConfigurationException(
        "a call re-entered scope "
            + key.scope()
            + " with the key "
            + key.redactedKey()
            + " that its own thread already holds (a nested call from inside the idempotent method,"
            + " with the same key): it would wait for itself and can never complete; give the"
            + " nested call a key or scope of its own, or call the inner code without the"
            + " idempotency wrapper");
  }
}
