package dev.idempotent.internal;

import dev.idempotent.CallOutcome;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One idempotent call, from {@link Protocol#begin} to its one terminal {@link Outcome}, whichever
 * driver runs it. Every event of the call, every store round trip it makes and its terminal outcome
 * pass through one method here each, so that instrumentation has one place to look at:
 *
 * <ul>
 *   <li>the start: {@link Protocol#begin} (which makes this object);
 *   <li>each claim: {@link #claim}; each completion: {@link #complete} (also the background retries
 *       of {@link CompletionRetries}); each release: {@link #release};
 *   <li>each wait for a key in progress: {@link #awaitChange} (blocking) or {@link
 *       #awaitChangeAsync};
 *   <li>each event: {@link #emit};
 *   <li>the terminal outcome: {@link #ended}, once per call.
 * </ul>
 */
final class Call {
  private static final long FIRST_POLL_NANOS = 10_000_000L;
  private static final long MAX_POLL_NANOS = 250_000_000L;

  /**
   * How a call reaches the store: the blocking driver calls the store on the calling thread and
   * hands back completed stages; the deferred driver uses the store's non-blocking face. A failure
   * may be thrown or returned as a failed stage.
   */
  interface StoreIo {
    CompletionStage<ClaimResult> claim(Call call, String owner);

    CompletionStage<Boolean> complete(Call call, String owner, byte[] outcome);

    CompletionStage<Boolean> release(Call call, String owner);
  }

  /**
   * How a call ended, as its caller sees it, with the event it is reported by (if any). Exactly one
   * per call that started ({@link #ended}); a call refused before it started (a blank key) has
   * none, nor has a claim whose work never ends (it ends with its lease at max-hold). An outcome
   * whose recording is retried in the background is reached when the retries end.
   */
  enum Outcome {
    /** The method ran and its value was recorded. */
    EXECUTED(IdempotencyEvent.Type.EXECUTED),
    /** The method failed and its failure (or an ambiguous-failure marker) was recorded. */
    RECORDED_FAILURE(IdempotencyEvent.Type.RECORDED_FAILURE),
    /** The method ran but its outcome was not recorded, and the key was released. */
    RELEASED(null),
    /** The method ran but this caller's claim was no longer held when it was to be recorded. */
    FENCED(IdempotencyEvent.Type.FENCED),
    /** The method ran but recording failed for good (or the call fails because it did). */
    NOT_RECORDED(null),
    /** A repeat got the recorded value or failure. */
    REPLAYED(IdempotencyEvent.Type.REPLAYED),
    /** A repeat of a completed key was rejected ({@code OnDuplicate.REJECT}). */
    REJECTED_DUPLICATE(IdempotencyEvent.Type.REJECTED_DUPLICATE),
    /** The key was in progress (rejected at once, or after the wait timeout). */
    IN_PROGRESS(IdempotencyEvent.Type.IN_PROGRESS),
    /** The key is blocked after an ambiguous failure ({@code OnAmbiguousFailure.BLOCK}). */
    BLOCKED(IdempotencyEvent.Type.BLOCKED),
    /** The call carried another payload than the recorded one. */
    PAYLOAD_MISMATCH(IdempotencyEvent.Type.MISMATCH),
    /** The recorded outcome could not be read back; the call failed. */
    UNREADABLE(IdempotencyEvent.Type.STORE_ERROR),
    /** The work was cancelled before it ended. */
    CANCELLED(IdempotencyEvent.Type.CANCELLED),
    /** The store failed before the method ran, which then ran unprotected (fail-open). */
    STORE_FAILURE_OPEN(IdempotencyEvent.Type.FAIL_OPEN),
    /** The store failed before the method ran, which did not run (fail-closed). */
    STORE_FAILURE_CLOSED(null),
    /**
     * The library refused the call before the method ran: re-entered on its own thread, the calling
     * thread interrupted, or the store's claim failed with one of the library's own exceptions.
     */
    REFUSED(null);

    /** The event that reports this outcome, or {@code null}. */
    final IdempotencyEvent.Type event;

    /** The outcome as observers see it. */
    final CallOutcome observed = CallOutcome.valueOf(name());

    Outcome(IdempotencyEvent.Type event) {
      this.event = event;
    }
  }

  final Protocol protocol;
  final OperationPlan plan;
  final RecordKey key;
  final String fingerprint;
  final long start;
  private final StoreIo io;
  private final CallObservation observation;
  private final AtomicBoolean ended = new AtomicBoolean();
  private final AtomicBoolean observationEnded = new AtomicBoolean();

  /** What the method threw, once it did: what the caller gets, for the observation's end. */
  private volatile Throwable methodFailure;

  /** When the wait for a key in progress ends (nanoTime); 0 before the first wait. */
  private long deadline;

  private long poll = FIRST_POLL_NANOS;

  Call(
      Protocol protocol,
      OperationPlan plan,
      RecordKey key,
      String fingerprint,
      long start,
      StoreIo io,
      CallObservation observation) {
    this.protocol = protocol;
    this.plan = plan;
    this.key = key;
    this.fingerprint = fingerprint;
    this.start = start;
    this.io = io;
    this.observation = observation;
  }

  /** The claim round trip: claims the key for a fresh owner token {@code owner}. */
  CompletionStage<ClaimResult> claim(String owner) {
    IdempotencyObserver.RoundTrip trip = observation.roundTrip("claim");
    try {
      return timed(trip, io.claim(this, owner));
    } catch (RuntimeException e) {
      trip.end(e);
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The completion round trip: records {@code outcome} for the plan's ttl, owner-checked. */
  CompletionStage<Boolean> complete(String owner, byte[] outcome) {
    IdempotencyObserver.RoundTrip trip = observation.roundTrip("complete");
    try {
      return timed(trip, io.complete(this, owner, outcome));
    } catch (RuntimeException e) {
      trip.end(e);
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The release round trip: deletes the claim of {@code owner}, owner-checked. */
  CompletionStage<Boolean> release(String owner) {
    IdempotencyObserver.RoundTrip trip = observation.roundTrip("release");
    try {
      return timed(trip, io.release(this, owner));
    } catch (RuntimeException e) {
      trip.end(e);
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Waits (blocking) for a change of the key another call holds, at most {@code pauseNanos}: one
   * observed wait.
   */
  void awaitChange(long pauseNanos) throws InterruptedException {
    IdempotencyObserver.RoundTrip wait = observation.waitForKey();
    try {
      plan.store.awaitChange(key, Duration.ofNanos(pauseNanos));
    } catch (InterruptedException | RuntimeException | Error e) {
      wait.end(e);
      throw e;
    }
    wait.end(null);
  }

  /**
   * Waits (without blocking) for a change of the key another call holds, at most {@code
   * pauseNanos}: one observed wait, which ends when the stage does.
   */
  CompletionStage<Void> awaitChangeAsync(long pauseNanos) {
    IdempotencyObserver.RoundTrip wait = observation.waitForKey();
    try {
      return timed(
          wait, AsyncStores.of(plan.store).awaitChangeAsync(key, Duration.ofNanos(pauseNanos)));
    } catch (RuntimeException e) {
      wait.end(e);
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@code stage}, whose round trip {@code trip} ends as the store answers and before anything that
   * depends on the answer runs (so a trace shows the round trip inside the call).
   */
  private static <T> CompletionStage<T> timed(
      IdempotencyObserver.RoundTrip trip, CompletionStage<T> stage) {
    if (trip == IdempotencyObserver.RoundTrip.NONE) {
      return stage;
    }
    CompletableFuture<T> answered = new CompletableFuture<>();
    stage.whenComplete(
        (value, error) -> {
          trip.end(error == null ? null : Protocol.unwrap(error));
          if (error != null) {
            answered.completeExceptionally(error);
          } else {
            answered.complete(value);
          }
        });
    return answered;
  }

  /** Reports an event of this call that does not end it: to the listener and the observation. */
  void emit(IdempotencyEvent.Type type, Throwable error) {
    protocol.emit(type, key, start, error);
    observation.event(type);
  }

  /**
   * Makes the call current on this thread while its work starts (a trace's call span is the parent
   * of what the work does there); closing it restores what was current.
   */
  IdempotencyObserver.Scope openScope() {
    return observation.openScope();
  }

  /** The method (or the work) threw {@code failure}; the caller gets it, or what settling gives. */
  void methodFailed(Throwable failure) {
    this.methodFailure = failure;
  }

  /**
   * The call's terminal outcome: reported by its event, if it has one. Only the first outcome of a
   * call counts; a later one is ignored. A fail-open call ({@link Outcome#STORE_FAILURE_OPEN}) is
   * reported now, when it is decided, but its observation goes on while the work runs unprotected
   * and ends with {@link #unprotectedEnded}.
   */
  void ended(Outcome outcome, Throwable error) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    if (outcome.event != null) {
      protocol.emit(outcome.event, key, start, error);
    }
    if (outcome == Outcome.STORE_FAILURE_OPEN) {
      return;
    }
    endObservation(outcome.observed, error != null ? error : methodFailure);
  }

  /**
   * The work of a fail-open call, which ran unprotected, ended: with {@code failure} thrown (what
   * the caller gets), or {@code null}. Ends the call's observation, once.
   */
  void unprotectedEnded(Throwable failure) {
    endObservation(CallOutcome.STORE_FAILURE_OPEN, failure);
  }

  private void endObservation(CallOutcome outcome, Throwable error) {
    if (observationEnded.compareAndSet(false, true)) {
      observation.end(outcome, error);
    }
  }

  /** Whether {@link #ended} was reached. */
  boolean hasEnded() {
    return ended.get();
  }

  /**
   * How long to wait before claiming again, for a key in progress whose lease ends in {@code
   * leaseLeftNanos}; 0 when the plan's wait timeout has passed. The first call starts the timeout;
   * the pauses grow from 10 ms to 250 ms and never outlast the holder's lease or the timeout.
   */
  long nextPauseNanos(long leaseLeftNanos) {
    long now = protocol.time.nanoTime();
    if (deadline == 0) {
      deadline = now + plan.waitTimeout.toNanos();
    }
    long remaining = deadline - now;
    if (remaining <= 0) {
      return 0;
    }
    long pause = Math.min(Math.min(remaining, poll), Math.max(leaseLeftNanos, 1_000_000L));
    poll = Math.min(poll * 2, MAX_POLL_NANOS);
    return pause;
  }

  /** The claim of {@code owner}, acquired: renewal starts now, until it is settled. */
  Settlement held(String owner) {
    return new Settlement(this, owner);
  }

  /**
   * The recorded {@code value} as the caller gets it ({@link Protocol#replayedValue}).
   *
   * @throws dev.idempotent.IdempotencyConfigurationException when the replay hook gives a value of
   *     the wrong type
   */
  Object replayedValue(Object value) {
    return protocol.replayedValue(plan, key, value);
  }
}
