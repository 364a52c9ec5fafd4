package dev.idempotent.internal;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyAmbiguousOutcomeException;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyInterruptedException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.TimeSource;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole idempotency protocol, in plain Java; the woven aspect and the programmatic API both
 * call it.
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
 *                        (checked first) held by a call on this same thread: IdempotencyConfigurationException
 *   store fails before the method ran -> FAIL_CLOSED: IdempotencyStoreException; FAIL_OPEN: run unprotected
 *   store fails after the method ran  -> the caller still gets the result; the failure is logged and emitted,
 *                                        and recording is retried in the background until the lease would end
 *   thread interrupted on entry, or before the method ran (claim or wait failed with the flag set or an
 *   interrupt as cause)
 *                                     -> IdempotencyInterruptedException, flag kept; never a store failure
 *   thread interrupted after the method ran -> complete/release run anyway (flag cleared for them, set again)
 * </pre>
 *
 * <p>Messages and log lines never copy a store exception's message unless it is an {@code
 * IdempotencyException} (whose messages name no whole key); of any other exception they show the
 * class name only, since a backend's message may list the command's arguments, the key among them.
 *
 * <p>A {@code CompletionStage} result is recorded when the stage completes; the caller gets a stage
 * that completes after the outcome is recorded, so a repeat that starts after it sees the outcome.
 *
 * <p>Why one class of about 800 lines: it is the blocking protocol above, decision by decision, and
 * the settling both paths share (completion, failure, release, events); split further, the diagram
 * would no longer read as the code. The non-blocking path is {@link DeferredCalls}, the lease
 * renewal {@link LeaseRenewer}, the background completion retries {@link CompletionRetries}.
 */
public final class IdempotencyExecutor {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final long FIRST_POLL_NANOS = 10_000_000L;
  private static final long MAX_POLL_NANOS = 250_000_000L;

  /** Per thread (JDK types only, so a class loader is never held by a pooled thread's map). */
  private static final ThreadLocal<CallState> STATE = ThreadLocal.withInitial(CallState::new);

  /** What this thread's calls leave behind: the claims it runs, and how its last call ended. */
  private static final class CallState {
    /** The owner tokens of the claims whose methods this thread runs, innermost last. */
    final List<String> held = new ArrayList<>();

    /** Whether this thread's last call was answered with a recorded outcome. */
    boolean replayed;
  }

  /**
   * Whether the last call this thread made, woven or programmatic, returned or threw a recorded
   * outcome instead of running (for a method returning a {@code CompletionStage}: whether the stage
   * it returned holds a recorded outcome). {@code false} before any call, after a first run, and
   * after a call the library refused.
   */
  public static boolean lastCallReplayed() {
    return STATE.get().replayed;
  }

  /** The method body, as the aspect or the programmatic API hands it over. */
  @FunctionalInterface
  public interface Body {
    Object run() throws Throwable;
  }

  final IdempotencyConfig config;
  final OutcomeCodec outcomes;
  final LeaseRenewer renewer;
  final TimeSource time;
  private final IdempotencyListener listener;
  private final boolean listening;
  private final IdempotencyObserver observer;
  private final DeferredCalls deferred;

  /**
   * One executor per configuration: {@link dev.idempotent.Idempotency} makes it, woven calls share
   * it.
   */
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
    this.observer = config.observer();
    this.deferred = new DeferredCalls(this);
    OwnerTokens.prepare();
  }

  /** The same protocol for work whose result arrives later, without blocking. */
  public DeferredCalls deferred() {
    return deferred;
  }

  /**
   * Runs {@code body} at most once per {@code rawKey} in the plan's scope.
   *
   * @param fingerprint the payload fingerprint, or {@code null} for no payload check
   */
  public Object execute(OperationPlan plan, String rawKey, String fingerprint, Body body)
      throws Throwable {
    if (rawKey == null || rawKey.isBlank()) {
      throw blankKey(plan, rawKey);
    }
    RecordKey key = RecordKey.of(plan.scope, rawKey).fittedTo(plan.maxKeyLength);
    ObservedCall call = startCall(plan, key);
    Object result;
    try {
      result = claimAndRun(plan, key, fingerprint, body, call);
    } catch (Throwable t) {
      call.end(t);
      throw t;
    }
    if (plan.async && result instanceof CompletionStage<?> stage) {
      stage.whenComplete((v, error) -> call.end(error == null ? null : unwrap(error)));
    } else {
      call.end(null);
    }
    return result;
  }

  /** Starts observing a call of {@code key}: its start time and its observation. */
  ObservedCall startCall(OperationPlan plan, RecordKey key) {
    return ObservedCall.start(observer, plan, key, time.nanoTime());
  }

  private Object claimAndRun(
      OperationPlan plan, RecordKey key, String fingerprint, Body body, ObservedCall call)
      throws Throwable {
    CallState state = STATE.get();
    state.replayed = false;
    if (Thread.currentThread().isInterrupted()) {
      // Decided before any store call: whether a store would still answer on an interrupted thread
      // varies (Redisson
      // sometimes does, sometimes cancels), and the caller must get the same answer every time.
      throw interrupted(key, "before the call", null);
    }
    IdempotencyStore store = plan.store;
    long deadline = 0;
    long poll = FIRST_POLL_NANOS;
    while (true) {
      String owner = OwnerTokens.next();
      ClaimResult claim;
      IdempotencyObserver.RoundTrip trip = call.roundTrip("claim");
      try {
        claim = store.claim(key, owner, fingerprint, plan.lease);
      } catch (IdempotencyStoreException e) {
        trip.end(e);
        return onClaimFailure(plan, key, owner, call, body, e);
      } catch (IdempotencyException e) {
        trip.end(e);
        throw e;
      } catch (RuntimeException e) {
        trip.end(e);
        return onClaimFailure(plan, key, owner, call, body, e);
      }
      trip.end(null);
      if (claim.isAcquired()) {
        if (claim.isTakeover()) {
          LOG.info("took over {}: the previous holder's lease had ended", key);
          emit(IdempotencyEvent.Type.TAKEN_OVER, key, call, null);
        }
        return runClaimed(plan, key, owner, call, body);
      }
      IdempotencyRecord existing = claim.existing();
      if (!existing.isCompleted() && heldByThisThread(existing.ownerToken())) {
        throw reentered(key);
      }
      checkPayload(key, fingerprint, existing, call);
      if (existing.isCompleted()) {
        if (plan.onDuplicate == OnDuplicate.REJECT) {
          emit(IdempotencyEvent.Type.REJECTED_DUPLICATE, key, call, null);
          throw new DuplicateRequestException(key.scope(), key.redactedKey());
        }
        Object replayed = replay(plan, key, existing, call, state);
        state.replayed = true;
        return replayed;
      }
      if (plan.onInProgress == OnInProgress.REJECT) {
        emit(IdempotencyEvent.Type.IN_PROGRESS, key, call, null);
        throw new IdempotencyInProgressException(
            key.scope(), key.redactedKey(), existing.expiresIn(), null);
      }
      long now = time.nanoTime();
      if (deadline == 0) {
        deadline = now + plan.waitTimeout.toNanos();
      }
      long remaining = deadline - now;
      if (remaining <= 0) {
        emit(IdempotencyEvent.Type.IN_PROGRESS, key, call, null);
        throw new IdempotencyInProgressException(
            key.scope(),
            key.redactedKey(),
            existing.expiresIn(),
            "waited " + plan.waitTimeout.toMillis() + " ms");
      }
      long pause =
          Math.min(Math.min(remaining, poll), Math.max(existing.expiresIn().toNanos(), 1_000_000L));
      IdempotencyObserver.RoundTrip wait = call.roundTrip("await");
      try {
        store.awaitChange(key, Duration.ofNanos(pause));
        wait.end(null);
      } catch (InterruptedException e) {
        wait.end(e);
        Thread.currentThread().interrupt();
        throw interrupted(key, "while waiting for the call that holds the key", e);
      } catch (RuntimeException e) {
        wait.end(e);
        if (isInterrupt(e)) {
          Thread.currentThread().interrupt();
          throw interrupted(key, "while waiting for the call that holds the key", e);
        }
        return onClaimFailure(plan, key, null, call, body, e);
      }
      poll = Math.min(poll * 2, MAX_POLL_NANOS);
    }
  }

  /**
   * Compares this call's payload fingerprint with the record's: a different payload is an {@link
   * IdempotencyKeyMismatchException}; a record fingerprinted by another version of the format is
   * not compared ({@code PAYLOAD_CHECK_SKIPPED}).
   */
  void checkPayload(
      RecordKey key, String fingerprint, IdempotencyRecord existing, ObservedCall call) {
    if (fingerprint == null
        || existing.fingerprint() == null
        || fingerprint.equals(existing.fingerprint())) {
      return;
    }
    if (!Fingerprints.sameVersion(fingerprint, existing.fingerprint())) {
      emit(IdempotencyEvent.Type.PAYLOAD_CHECK_SKIPPED, key, call, null);
      return;
    }
    emit(IdempotencyEvent.Type.MISMATCH, key, call, null);
    throw new IdempotencyKeyMismatchException(key.scope(), key.redactedKey());
  }

  /** A null or blank key, named by what gave it (the plan's key source, or the caller). */
  static IdempotencyKeyException blankKey(OperationPlan plan, String rawKey) {
    String message =
        plan.keySource == null
            ? "the idempotency key is "
                + (rawKey == null ? "null" : "blank")
                + ": give every call a non-blank key"
            : plan.keySource
                + " gave "
                + (rawKey == null ? "null" : "a blank key")
                + " for these arguments; every call needs a non-blank key";
    return new IdempotencyKeyException(message, plan.scope, null);
  }

  /**
   * A claim (owner given) or a wait (owner {@code null}) failed before the method ran. An interrupt
   * is not a store failure: the caller gets {@link IdempotencyInterruptedException} whatever the
   * policy, and a claim that may have reached the store is released. Otherwise the store-failure
   * policy decides.
   */
  private Object onClaimFailure(
      OperationPlan plan,
      RecordKey key,
      String owner,
      ObservedCall call,
      Body body,
      RuntimeException e)
      throws Throwable {
    if (isInterrupt(e)) {
      Thread.currentThread().interrupt();
      if (owner != null) {
        try {
          despiteInterrupt(
              () ->
                  plan.store.release(key, owner)); // fenced (false) when the claim never got there
        } catch (RuntimeException releaseFailure) {
          LOG.debug(
              "releasing the interrupted claim of {} failed; a claim that got there ends with its"
                  + " lease: {}",
              key,
              describe(releaseFailure));
        }
      }
      throw interrupted(key, "while claiming the key", e);
    }
    emit(IdempotencyEvent.Type.STORE_ERROR, key, call, e);
    if (config.storeFailurePolicy() == StoreFailurePolicy.FAIL_OPEN) {
      LOG.warn("store failed for {}; running unprotected (fail-open): {}", key, describe(e));
      emit(IdempotencyEvent.Type.FAIL_OPEN, key, call, e);
      try (IdempotencyObserver.Scope scope = call.openScope()) {
        return body.run();
      } finally {
        STATE.get().replayed = false;
      }
    }
    throw new IdempotencyStoreException(
        "the idempotency store failed, so the call did not run (fail-closed): " + describe(e),
        key.scope(),
        key.redactedKey(),
        e);
  }

  private static IdempotencyInterruptedException interrupted(
      RecordKey key, String when, Throwable cause) {
    return new IdempotencyInterruptedException(
        "the calling thread was interrupted "
            + when
            + ", so the call did not run; its interrupt flag is still set",
        key.scope(),
        key.redactedKey(),
        cause);
  }

  /**
   * Whether a store failure comes from an interrupt of the calling thread: the flag is set, or the
   * cause chain holds an {@link InterruptedException} (Redisson throws one wrapped in its own
   * exception, and sets the flag again), a {@link ClosedByInterruptException} or a plain {@link
   * InterruptedIOException} (not its subclass {@code SocketTimeoutException}).
   */
  static boolean isInterrupt(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    int depth = 0;
    for (Throwable t = e;
        t != null && depth < 32;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (t instanceof InterruptedException
          || t instanceof ClosedByInterruptException
          || t.getClass() == InterruptedIOException.class) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs a store write that must happen even on an interrupted thread, because the method already
   * ran (or, for the release of an interrupted claim, because it may have reached the store): with
   * the interrupt flag set, or when the write fails because of an interrupt, the flag is cleared
   * for one attempt and then set again. The store's owner-checked writes answer a repeat of a write
   * that had been applied truthfully.
   */
  private static <T> T despiteInterrupt(Supplier<T> write) {
    if (!Thread.currentThread().isInterrupted()) {
      try {
        return write.get();
      } catch (RuntimeException e) {
        if (!isInterrupt(e)) {
          throw e;
        }
      }
    }
    Thread.interrupted();
    try {
      return write.get();
    } finally {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * What a message or log line may show of a failure: the library's own exceptions (which name no
   * whole key) in full, any other only by its class name, as a backend's message may carry the key.
   */
  static String describe(Throwable e) {
    return e instanceof IdempotencyException ? e.toString() : e.getClass().getName();
  }

  private Object runClaimed(
      OperationPlan plan, RecordKey key, String owner, ObservedCall call, Body body)
      throws Throwable {
    LeaseRenewer.ActiveClaim lease =
        renewer.start(
            plan.store,
            plan.settings.store(),
            key,
            owner,
            plan.lease,
            config.maxHold(),
            (type, error) -> emit(type, key, call, error));
    Object value;
    CallState state = STATE.get();
    List<String> held = state.held;
    held.add(owner);
    call.ran();
    try (IdempotencyObserver.Scope scope = call.openScope()) {
      value = body.run();
    } catch (Throwable t) {
      renewer.stop(lease);
      throw settleFailure(plan, key, owner, t, call);
    } finally {
      held.remove(held.size() - 1);
      state.replayed = false; // a call nested in the body may have been a replay; this one is not
    }
    if (plan.async && value instanceof CompletionStage<?> stage) {
      CompletableFuture<Object> out = new CompletableFuture<>();
      stage.whenComplete(
          (v, err) -> {
            renewer.stop(lease);
            if (err != null) {
              Throwable failure = unwrap(err);
              Throwable thrown = settleFailure(plan, key, owner, failure, call);
              out.completeExceptionally(thrown == failure ? err : thrown);
            } else {
              try {
                record(plan, key, owner, v, call);
              } catch (
                  Throwable
                      notRecorded) { // the outcome belonged to the caller's transaction and was not
                // recorded
                out.completeExceptionally(notRecorded);
                return;
              }
              out.complete(v);
            }
          });
      return out;
    }
    renewer.stop(lease);
    record(plan, key, owner, value, call);
    return value;
  }

  /**
   * True when {@code ownerToken} is the claim of a call this thread is running (a nested call
   * re-entered it).
   */
  private static boolean heldByThisThread(String ownerToken) {
    return ownerToken != null && STATE.get().held.contains(ownerToken);
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

  /** Scope, declared type and runtime class of each outcome already reported as not recordable. */
  private final Set<List<Object>> reportedUnrecordable = ConcurrentHashMap.newKeySet();

  private void record(
      OperationPlan plan, RecordKey key, String owner, Object value, ObservedCall call) {
    byte[] bytes;
    try {
      bytes = outcomes.encodeValue(value, plan.valueType);
    } catch (RuntimeException e) {
      reportUnrecordable(plan, key, value.getClass(), e, call);
      release(plan, key, owner, call);
      return;
    }
    complete(plan, key, owner, bytes, call);
  }

  /**
   * Settles a claim whose method failed: records the failure when the plan lists it, else releases
   * the key. Returns what the caller gets: the method's own failure, with whatever went wrong while
   * settling added to it as suppressed; or, when the store must fail the call (a completion that
   * belongs to the caller's transaction could not be recorded there), the store's exception with
   * the method's failure added to it as suppressed. The method's failure is never lost.
   */
  private Throwable settleFailure(
      OperationPlan plan, RecordKey key, String owner, Throwable failure, ObservedCall call) {
    try {
      byte[] bytes = failureOutcome(plan, key, failure, call);
      if (bytes == null) {
        release(plan, key, owner, call);
      } else {
        complete(plan, key, owner, bytes, call);
      }
      return failure;
    } catch (IdempotencyStoreException callFails) {
      // complete() already logged it; the business failure travels with it
      addSuppressed(callFails, failure);
      return callFails;
    } catch (Throwable settling) {
      LOG.error(
          "settling the failed call of {} failed; the method's own exception is thrown, with this"
              + " one suppressed in it: {}",
          key,
          describe(settling));
      emit(IdempotencyEvent.Type.STORE_ERROR, key, call, settling);
      addSuppressed(failure, settling);
      return failure;
    }
  }

  /**
   * What to record for a call that failed with {@code failure}, or {@code null} to release the key:
   * a listed failure as itself; an unlisted one, or a listed one that cannot be recorded, as the
   * plan's {@link OnAmbiguousFailure} says.
   */
  byte[] failureOutcome(OperationPlan plan, RecordKey key, Throwable failure, ObservedCall call) {
    if (failure instanceof UnrecordedOutcome) {
      return null;
    }
    if (plan.records(failure)) {
      try {
        return outcomes.encodeFailure(failure, plan.loader, plan.recordFailures);
      } catch (RuntimeException e) {
        reportUnrecordable(plan, key, failure.getClass(), e, call);
      }
    }
    return switch (plan.onAmbiguousFailure) {
      case RELEASE -> null;
      case RECORD -> OutcomeCodec.encodeAmbiguous(failure, false);
      case BLOCK -> OutcomeCodec.encodeAmbiguous(failure, true);
    };
  }

  /**
   * What a repeat of a record of an ambiguous failure gets: {@link
   * IdempotencyAmbiguousOutcomeException}, or {@link IdempotencyBlockedException} for a blocked
   * key.
   */
  IdempotencyException ambiguousReplay(RecordKey key, IdempotencyRecord record, ObservedCall call) {
    String type = OutcomeCodec.ambiguousFailureType(record.outcome());
    if (OutcomeCodec.isBlocked(record.outcome())) {
      emit(IdempotencyEvent.Type.BLOCKED, key, call, null);
      return new IdempotencyBlockedException(
          key.scope(), key.redactedKey(), record.expiresIn(), type);
    }
    emit(IdempotencyEvent.Type.REPLAYED, key, call, null);
    return new IdempotencyAmbiguousOutcomeException(key.scope(), key.redactedKey(), type);
  }

  private static void addSuppressed(Throwable to, Throwable suppressed) {
    if (to != suppressed) {
      to.addSuppressed(suppressed);
    }
  }

  /**
   * An outcome that cannot be encoded, or would not read back, is not recorded: every repeat would
   * fail for the whole ttl. One ERROR per scope, declared type and runtime class (the message names
   * the type and the fix), and a {@code STORE_ERROR} event per call.
   */
  void reportUnrecordable(
      OperationPlan plan, RecordKey key, Class<?> type, RuntimeException e, ObservedCall call) {
    emit(IdempotencyEvent.Type.STORE_ERROR, key, call, e);
    if (reportedUnrecordable.add(List.of(plan.scope, plan.valueType, type))) {
      LOG.error(
          "the outcome of {} (a {}) is not recorded, so this key is released and every repeat runs"
              + " the method again until this is fixed; the caller gets its outcome. {} (logged"
              + " once for this operation and type)",
          key,
          type.getName(),
          e.getMessage(),
          e);
    } else {
      LOG.debug(
          "the outcome of {} (a {}) is not recorded: {}", key, type.getName(), e.getMessage());
    }
  }

  private void complete(
      OperationPlan plan, RecordKey key, String owner, byte[] bytes, ObservedCall call) {
    boolean done;
    IdempotencyObserver.RoundTrip trip = call.roundTrip("complete");
    try {
      done = despiteInterrupt(() -> plan.store.complete(key, owner, bytes, plan.ttl));
      trip.end(null);
    } catch (RuntimeException e) {
      trip.end(e);
      if (completionFailed(plan, key, owner, bytes, e, call)) {
        release(plan, key, owner, call);
      }
      return;
    }
    completed(key, bytes, done, call);
  }

  /**
   * The store answered a completion with {@code bytes}: the outcome is recorded (a result, or a
   * failure), or this holder was fenced.
   */
  void completed(RecordKey key, byte[] bytes, boolean recorded, ObservedCall call) {
    if (recorded) {
      emit(recordedType(bytes), key, call, null);
    } else {
      LOG.warn(
          "the outcome of {} was not recorded: the store no longer holds this caller's claim (its"
              + " lease ended and another caller took the key over, or the store dropped it); the"
              + " caller still gets its result",
          key);
      emit(IdempotencyEvent.Type.FENCED, key, call, null);
    }
  }

  /**
   * A completion failed with {@code e} after the method ran. An outcome that belongs to the
   * caller's transaction fails the call: this throws the {@link IdempotencyStoreException} to
   * throw. An outcome the backend can never accept: returns {@code true}, release the key. Any
   * other failure: recording is retried in the background, and this returns {@code false}.
   */
  boolean completionFailed(
      OperationPlan plan,
      RecordKey key,
      String owner,
      byte[] bytes,
      Throwable e,
      ObservedCall call) {
    emit(IdempotencyEvent.Type.STORE_ERROR, key, call, e);
    if (e instanceof OutcomeNotRecordedException notRecorded) {
      if (notRecorded.isUnconfirmed()) {
        LOG.warn("the outcome of {} was recorded but not confirmed: {}", key, e.getMessage());
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
        describe(e));
    CompletionRetries.shared()
        .retry(
            plan.store,
            key,
            owner,
            bytes,
            plan.ttl,
            plan.lease,
            result -> {
              switch (result) {
                case RECORDED -> {
                  LOG.info("the outcome of {} was recorded on a later attempt", key);
                  emit(recordedType(bytes), key, call, null);
                }
                case FENCED -> emit(IdempotencyEvent.Type.FENCED, key, call, null);
                case GAVE_UP -> emit(IdempotencyEvent.Type.STORE_ERROR, key, call, e);
              }
            });
    return false;
  }

  /** The event of a recorded outcome: a result, or a failure. */
  private static IdempotencyEvent.Type recordedType(byte[] bytes) {
    return OutcomeCodec.isFailure(bytes) || OutcomeCodec.isAmbiguous(bytes)
        ? IdempotencyEvent.Type.RECORDED_FAILURE
        : IdempotencyEvent.Type.EXECUTED;
  }

  private void release(OperationPlan plan, RecordKey key, String owner, ObservedCall call) {
    boolean done;
    IdempotencyObserver.RoundTrip trip = call.roundTrip("release");
    try {
      done = despiteInterrupt(() -> plan.store.release(key, owner));
      trip.end(null);
    } catch (RuntimeException e) {
      trip.end(e);
      released(key, null, e, call);
      return;
    }
    released(key, done, null, call);
  }

  /** The store answered a release ({@code released}), or failed it ({@code error}). */
  void released(RecordKey key, Boolean released, Throwable error, ObservedCall call) {
    if (error != null) {
      LOG.error(
          "releasing {} failed; the claim frees itself when its lease ends: {}",
          key,
          describe(error));
      emit(IdempotencyEvent.Type.STORE_ERROR, key, call, error);
    } else if (!released) {
      LOG.warn("releasing {} was refused: another caller holds the key now", key);
      emit(IdempotencyEvent.Type.FENCED, key, call, null);
    }
  }

  private Object replay(
      OperationPlan plan, RecordKey key, IdempotencyRecord rec, ObservedCall call, CallState state)
      throws Throwable {
    byte[] outcome = rec.outcome();
    if (OutcomeCodec.isAmbiguous(outcome)) {
      IdempotencyException failure;
      try {
        failure = ambiguousReplay(key, rec, call);
      } catch (RuntimeException e) {
        throw unreadable(key, e, call);
      }
      state.replayed = true;
      if (plan.async) {
        return CompletableFuture.failedFuture(failure);
      }
      throw failure;
    }
    if (OutcomeCodec.isFailure(outcome)) {
      Throwable failure;
      try {
        failure = outcomes.decodeFailure(outcome, plan.loader, plan.recordFailures);
      } catch (RuntimeException e) {
        throw unreadable(key, e, call);
      }
      emit(IdempotencyEvent.Type.REPLAYED, key, call, null);
      state.replayed = true;
      if (plan.async) {
        return CompletableFuture.failedFuture(failure);
      }
      throw failure;
    }
    Object value;
    try {
      value = outcomes.decodeValue(outcome, plan.valueType);
    } catch (RuntimeException e) {
      throw unreadable(key, e, call);
    }
    emit(IdempotencyEvent.Type.REPLAYED, key, call, null);
    if (plan.async) {
      try {
        return CompletableFuture.completedFuture(replayedValue(plan, key, value));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return replayedValue(plan, key, value);
  }

  /**
   * {@code value}, recorded under {@code key}, as the configured {@link dev.idempotent.ReplayHook}
   * hands it to the caller: of the plan's result type, or the call fails naming the scope. A plan
   * without the hook (an adapter's own values) gets the value as recorded.
   */
  Object replayedValue(OperationPlan plan, RecordKey key, Object value) {
    dev.idempotent.ReplayHook hook = config.replayHook();
    if (hook == dev.idempotent.ReplayHook.NONE || !plan.replayHooked) {
      return value;
    }
    Object adjusted = hook.onReplay(key.scope(), value);
    Class<?> expected = plan.replayedClass;
    if (adjusted != null && expected != null && !expected.isInstance(adjusted)) {
      throw new IdempotencyConfigurationException(
          "the replay hook returned a "
              + adjusted.getClass().getName()
              + " for scope "
              + key.scope()
              + ", whose callers expect a "
              + expected.getName()
              + ": return a value of the recorded value's type (or the value unchanged)");
    }
    return adjusted;
  }

  /**
   * A completed record whose outcome cannot be read back fails this call; the method does not run
   * again.
   */
  IdempotencyOutcomeException unreadable(RecordKey key, RuntimeException e, ObservedCall call) {
    LOG.error(
        "the recorded outcome of {} cannot be read back, so this call fails and the method does not"
            + " run again: {}",
        key,
        e.getMessage());
    IdempotencyOutcomeException failure =
        new IdempotencyOutcomeException(
            "the recorded outcome cannot be read back, so the call fails without running the method"
                + " again (that could repeat its effect): "
                + e.getMessage(),
            key.scope(),
            key.redactedKey(),
            e);
    emit(IdempotencyEvent.Type.STORE_ERROR, key, call, failure);
    return failure;
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  void emit(IdempotencyEvent.Type type, RecordKey key, ObservedCall call, Throwable error) {
    call.note(type, error);
    if (!listening) {
      return;
    }
    try {
      listener.onEvent(
          new IdempotencyEvent(
              type,
              key.scope(),
              key.redactedKey(),
              Duration.ofNanos(time.nanoTime() - call.start),
              error));
    } catch (Throwable t) {
      LOG.warn(
          "IdempotencyListener {} threw on {}; ignored", listener.getClass().getName(), type, t);
    }
  }
}
