package dev.idempotent.internal;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.TimeSource;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole idempotency protocol, in plain Java; the woven aspect and the programmatic API both call it.
 *
 * <pre>
 *   claim(key, fresh owner token, fingerprint, lease)
 *     acquired        -> start lease renewal, run the method
 *                          returned            -> complete(outcome, ttl), return the result
 *                          recorded failure    -> complete(failure, ttl), rethrow it
 *                          other failure       -> release (owner-checked), rethrow it unchanged
 *     COMPLETED       -> payload differs?  IdempotencyKeyMismatchException
 *                        REPLAY: return the recorded result / rethrow the recorded failure
 *                        REJECT: DuplicateRequestException
 *     IN_PROGRESS     -> payload differs?  IdempotencyKeyMismatchException
 *                        REJECT: IdempotencyInProgressException
 *                        WAIT:   awaitChange (bounded, growing interval), claim again, until the wait timeout
 *   store fails before the method ran -> FAIL_CLOSED: IdempotencyStoreException; FAIL_OPEN: run unprotected
 *   store fails after the method ran  -> the caller still gets the result; the failure is logged and emitted,
 *                                        and recording is retried in the background until the lease would end
 * </pre>
 *
 * A {@code CompletionStage} result is recorded when the stage completes; the caller gets a stage that completes
 * after the outcome is recorded, so a repeat that starts after it sees the outcome.
 */
public final class IdempotencyExecutor {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final long FIRST_POLL_NANOS = 10_000_000L;
  private static final long MAX_POLL_NANOS = 250_000_000L;

  /** The method body, as the aspect or the programmatic API hands it over. */
  @FunctionalInterface
  public interface Body {
    Object run() throws Throwable;
  }

  private final IdempotencyConfig config;
  private final OutcomeCodec outcomes;
  private final LeaseRenewer renewer;
  private final TimeSource time;
  private final IdempotencyListener listener;
  private final boolean listening;

  public IdempotencyExecutor(IdempotencyConfig config) {
    this(config, LeaseRenewer.shared());
  }

  IdempotencyExecutor(IdempotencyConfig config, LeaseRenewer renewer) {
    this.config = config;
    this.outcomes = new OutcomeCodec(config.codec());
    this.renewer = renewer;
    this.time = config.timeSource();
    this.listener = config.listener();
    this.listening = listener != IdempotencyListener.NO_OP;
  }

  public IdempotencyConfig config() {
    return config;
  }

  public OutcomeCodec outcomes() {
    return outcomes;
  }

  /**
   * Runs {@code body} at most once per {@code rawKey} in the plan's scope.
   *
   * @param fingerprint the payload fingerprint, or {@code null} for no payload check
   */
  public Object execute(OperationPlan plan, String rawKey, String fingerprint, Body body) throws Throwable {
    if (rawKey == null || rawKey.isBlank()) {
      throw new IdempotencyKeyException("the idempotency key is " + (rawKey == null ? "null" : "blank")
          + ": give every call a non-blank key", plan.scope, null);
    }
    RecordKey key = RecordKey.of(plan.scope, rawKey).fittedTo(plan.maxKeyLength);
    IdempotencyStore store = plan.store;
    long start = time.nanoTime();
    long deadline = 0;
    long poll = FIRST_POLL_NANOS;
    while (true) {
      String owner = OwnerTokens.next();
      ClaimResult claim;
      try {
        claim = store.claim(key, owner, fingerprint, plan.lease);
      } catch (IdempotencyException e) {
        throw e;
      } catch (RuntimeException e) {
        return onClaimFailure(plan, key, start, body, e);
      }
      if (claim.isAcquired()) {
        if (claim.isTakeover()) {
          LOG.info("took over {}: the previous holder's lease had ended", key);
          emit(IdempotencyEvent.Type.TAKEN_OVER, key, start, null);
        }
        return runClaimed(plan, key, owner, start, body);
      }
      IdempotencyRecord existing = claim.existing();
      if (fingerprint != null && existing.fingerprint() != null && !fingerprint.equals(existing.fingerprint())) {
        emit(IdempotencyEvent.Type.MISMATCH, key, start, null);
        throw new IdempotencyKeyMismatchException(key.scope(), key.redactedKey());
      }
      if (existing.isCompleted()) {
        if (plan.onDuplicate == OnDuplicate.REJECT) {
          emit(IdempotencyEvent.Type.REJECTED_DUPLICATE, key, start, null);
          throw new DuplicateRequestException(key.scope(), key.redactedKey());
        }
        return replay(plan, key, existing, start);
      }
      if (plan.onInProgress == OnInProgress.REJECT) {
        emit(IdempotencyEvent.Type.IN_PROGRESS, key, start, null);
        throw new IdempotencyInProgressException(key.scope(), key.redactedKey(), existing.expiresIn(), null);
      }
      long now = time.nanoTime();
      if (deadline == 0) {
        deadline = now + plan.waitTimeout.toNanos();
      }
      long remaining = deadline - now;
      if (remaining <= 0) {
        emit(IdempotencyEvent.Type.IN_PROGRESS, key, start, null);
        throw new IdempotencyInProgressException(key.scope(), key.redactedKey(), existing.expiresIn(),
            "waited " + plan.waitTimeout.toMillis() + " ms");
      }
      long pause = Math.min(Math.min(remaining, poll), Math.max(existing.expiresIn().toNanos(), 1_000_000L));
      try {
        store.awaitChange(key, Duration.ofNanos(pause));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IdempotencyInProgressException(key.scope(), key.redactedKey(), existing.expiresIn(),
            "interrupted while waiting");
      } catch (RuntimeException e) {
        return onClaimFailure(plan, key, start, body, e);
      }
      poll = Math.min(poll * 2, MAX_POLL_NANOS);
    }
  }

  private Object onClaimFailure(OperationPlan plan, RecordKey key, long start, Body body, RuntimeException e)
      throws Throwable {
    emit(IdempotencyEvent.Type.STORE_ERROR, key, start, e);
    if (config.storeFailurePolicy() == StoreFailurePolicy.FAIL_OPEN) {
      LOG.warn("store failed for {}; running unprotected (fail-open): {}", key, e.toString());
      emit(IdempotencyEvent.Type.FAIL_OPEN, key, start, e);
      return body.run();
    }
    throw new IdempotencyStoreException("the idempotency store failed, so the call did not run (fail-closed): " + e,
        key.scope(), key.redactedKey(), e);
  }

  private Object runClaimed(OperationPlan plan, RecordKey key, String owner, long start, Body body) throws Throwable {
    LeaseRenewer.ActiveClaim lease = renewer.start(plan.store, key, owner, plan.lease,
        lost -> emit(IdempotencyEvent.Type.FENCED, key, start, null));
    Object value;
    try {
      value = body.run();
    } catch (Throwable t) {
      renewer.stop(lease);
      settleFailure(plan, key, owner, t, start);
      throw t;
    }
    if (plan.async && value instanceof CompletionStage<?> stage) {
      CompletableFuture<Object> out = new CompletableFuture<>();
      stage.whenComplete((v, err) -> {
        renewer.stop(lease);
        if (err != null) {
          try {
            settleFailure(plan, key, owner, unwrap(err), start);
          } finally {
            out.completeExceptionally(err);
          }
        } else {
          try {
            record(plan, key, owner, v, start);
          } finally {
            out.complete(v);
          }
        }
      });
      return out;
    }
    renewer.stop(lease);
    record(plan, key, owner, value, start);
    return value;
  }

  /** Scope, declared type and runtime class of each outcome already reported as not recordable. */
  private final Set<List<Object>> reportedUnrecordable = ConcurrentHashMap.newKeySet();

  private void record(OperationPlan plan, RecordKey key, String owner, Object value, long start) {
    byte[] bytes;
    try {
      bytes = outcomes.encodeValue(value, plan.valueType);
    } catch (RuntimeException e) {
      reportUnrecordable(plan, key, value.getClass(), e, start);
      release(plan, key, owner, start);
      return;
    }
    complete(plan, key, owner, bytes, start);
  }

  private void settleFailure(OperationPlan plan, RecordKey key, String owner, Throwable failure, long start) {
    if (plan.records(failure)) {
      byte[] bytes;
      try {
        bytes = outcomes.encodeFailure(failure, plan.loader, plan.recordFailures);
      } catch (RuntimeException e) {
        reportUnrecordable(plan, key, failure.getClass(), e, start);
        release(plan, key, owner, start);
        return;
      }
      complete(plan, key, owner, bytes, start);
    } else {
      release(plan, key, owner, start);
    }
  }

  /**
   * An outcome that cannot be encoded, or would not read back, is not recorded: every repeat would fail for the
   * whole ttl. One ERROR per scope, declared type and runtime class (the message names the type and the fix), and a
   * {@code STORE_ERROR} event per call.
   */
  private void reportUnrecordable(OperationPlan plan, RecordKey key, Class<?> type, RuntimeException e, long start) {
    emit(IdempotencyEvent.Type.STORE_ERROR, key, start, e);
    if (reportedUnrecordable.add(List.of(plan.scope, plan.valueType, type))) {
      LOG.error("the outcome of {} (a {}) is not recorded, so this key is released and every repeat runs the method"
          + " again until this is fixed; the caller gets its outcome. {} (logged once for this operation and type)",
          key, type.getName(), e.getMessage(), e);
    } else {
      LOG.debug("the outcome of {} (a {}) is not recorded: {}", key, type.getName(), e.getMessage());
    }
  }

  private void complete(OperationPlan plan, RecordKey key, String owner, byte[] bytes, long start) {
    try {
      if (plan.store.complete(key, owner, bytes, plan.ttl)) {
        emit(IdempotencyEvent.Type.EXECUTED, key, start, null);
      } else {
        LOG.warn("the outcome of {} was not recorded: the store no longer holds this caller's claim (its lease "
            + "ended and another caller took the key over, or the store dropped it); the caller still gets its result",
            key);
        emit(IdempotencyEvent.Type.FENCED, key, start, null);
      }
    } catch (RuntimeException e) {
      LOG.warn("recording the outcome of {} failed; the caller gets its result and recording is retried in the "
          + "background until the lease would end: {}", key, e.toString());
      emit(IdempotencyEvent.Type.STORE_ERROR, key, start, e);
      CompletionRetries.shared().retry(plan.store, key, owner, bytes, plan.ttl, plan.lease, result -> {
        switch (result) {
          case RECORDED -> {
            LOG.info("the outcome of {} was recorded on a later attempt", key);
            emit(IdempotencyEvent.Type.EXECUTED, key, start, null);
          }
          case FENCED -> emit(IdempotencyEvent.Type.FENCED, key, start, null);
          case GAVE_UP -> emit(IdempotencyEvent.Type.STORE_ERROR, key, start, e);
        }
      });
    }
  }

  private void release(OperationPlan plan, RecordKey key, String owner, long start) {
    try {
      if (!plan.store.release(key, owner)) {
        LOG.warn("releasing {} was refused: another caller holds the key now", key);
        emit(IdempotencyEvent.Type.FENCED, key, start, null);
      }
    } catch (RuntimeException e) {
      LOG.error("releasing {} failed; the claim frees itself when its lease ends: {}", key, e.toString());
      emit(IdempotencyEvent.Type.STORE_ERROR, key, start, e);
    }
  }

  private Object replay(OperationPlan plan, RecordKey key, IdempotencyRecord rec, long start) throws Throwable {
    byte[] outcome = rec.outcome();
    if (OutcomeCodec.isFailure(outcome)) {
      Throwable failure;
      try {
        failure = outcomes.decodeFailure(outcome, plan.loader, plan.recordFailures);
      } catch (RuntimeException e) {
        throw unreadable(key, e, start);
      }
      emit(IdempotencyEvent.Type.REPLAYED, key, start, null);
      if (plan.async) {
        return CompletableFuture.failedFuture(failure);
      }
      throw failure;
    }
    Object value;
    try {
      value = outcomes.decodeValue(outcome, plan.valueType);
    } catch (RuntimeException e) {
      throw unreadable(key, e, start);
    }
    emit(IdempotencyEvent.Type.REPLAYED, key, start, null);
    return plan.async ? CompletableFuture.completedFuture(value) : value;
  }

  /** A completed record whose outcome cannot be read back fails this call; the method does not run again. */
  private IdempotencyOutcomeException unreadable(RecordKey key, RuntimeException e, long start) {
    LOG.error("the recorded outcome of {} cannot be read back, so this call fails and the method does not run again:"
        + " {}", key, e.getMessage());
    IdempotencyOutcomeException failure = new IdempotencyOutcomeException("the recorded outcome cannot be read back,"
        + " so the call fails without running the method again (that could repeat its effect): " + e.getMessage(),
        key.scope(), key.redactedKey(), e);
    emit(IdempotencyEvent.Type.STORE_ERROR, key, start, failure);
    return failure;
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private void emit(IdempotencyEvent.Type type, RecordKey key, long start, Throwable error) {
    if (!listening) {
      return;
    }
    try {
      listener.onEvent(new IdempotencyEvent(type, key.scope(), key.redactedKey(),
          Duration.ofNanos(time.nanoTime() - start), error));
    } catch (Throwable t) {
      LOG.warn("IdempotencyListener {} threw on {}; ignored", listener.getClass().getName(), type, t);
    }
  }
}
