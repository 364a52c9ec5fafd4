package dev.idempotent.internal;

import dev.idempotent.CallOutcome;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.spi.RecordKey;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call as the drivers carry it from its start to its end: when it started (for the events'
 * durations), its {@link IdempotencyObserver.Call}, and the outcome its events decide.
 *
 * <p>The outcome comes from the events the call emits, in one place ({@link #note}): the event that
 * answers the call (executed, recorded failure, replayed, rejected, in progress, blocked, mismatch,
 * cancelled, fail-open) decides it; a store failure before the method ran makes it {@code
 * store_failure_closed} unless fail-open follows; one after the method ran (or a fenced write)
 * makes it {@code not_recorded}. A call that ends with none of these is {@code failed} when the
 * method ran (its failure released the key) and {@code refused} when it did not. Events after the
 * end (a background completion retry) reach listeners but not the ended observation.
 *
 * <p>With {@link IdempotencyObserver#NO_OP} the observation is {@link
 * IdempotencyObserver.Call#NONE} and every step here is a field write or an empty call.
 */
final class ObservedCall {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  final long start;
  private final IdempotencyObserver.Call observation;
  private volatile CallOutcome outcome;
  private volatile boolean ran;
  private final AtomicBoolean ended = new AtomicBoolean();

  private ObservedCall(long start, IdempotencyObserver.Call observation) {
    this.start = start;
    this.observation = observation;
  }

  static ObservedCall start(
      IdempotencyObserver observer, OperationPlan plan, RecordKey key, long start) {
    if (observer == IdempotencyObserver.NO_OP) {
      return new ObservedCall(start, IdempotencyObserver.Call.NONE);
    }
    IdempotencyObserver.Call call;
    try {
      call = observer.start(plan.scope, plan.storeName, plan.adapter, key.redactedKey());
    } catch (Throwable t) {
      warn(observer, "start", t);
      call = IdempotencyObserver.Call.NONE;
    }
    return new ObservedCall(start, call == null ? IdempotencyObserver.Call.NONE : call);
  }

  /** The method (or the deferred work) starts running under the claim. */
  void ran() {
    ran = true;
  }

  /** An event of this call: decides the outcome, or is an event on the observation. */
  void note(IdempotencyEvent.Type type, Throwable error) {
    if (ended.get()) {
      return;
    }
    CallOutcome decided =
        switch (type) {
          case EXECUTED -> CallOutcome.EXECUTED;
          case RECORDED_FAILURE -> CallOutcome.RECORDED_FAILURE;
          case REPLAYED -> CallOutcome.REPLAYED;
          case REJECTED_DUPLICATE -> CallOutcome.REJECTED_DUPLICATE;
          case IN_PROGRESS -> CallOutcome.IN_PROGRESS;
          case BLOCKED -> CallOutcome.BLOCKED;
          case MISMATCH -> CallOutcome.PAYLOAD_MISMATCH;
          case CANCELLED -> CallOutcome.CANCELLED;
          case FAIL_OPEN -> CallOutcome.STORE_FAILURE_OPEN;
          default -> null;
        };
    if (decided != null) {
      outcome = decided;
      return;
    }
    if (type == IdempotencyEvent.Type.STORE_ERROR || type == IdempotencyEvent.Type.FENCED) {
      if (ran) {
        if (outcome == null) {
          outcome = CallOutcome.NOT_RECORDED;
        }
      } else if (outcome == null) {
        outcome =
            error instanceof IdempotencyOutcomeException
                ? CallOutcome.REFUSED
                : CallOutcome.STORE_FAILURE_CLOSED;
      }
    }
    if (type == IdempotencyEvent.Type.STORE_ERROR && !ran) {
      return; // the outcome says it
    }
    try {
      observation.event(type);
    } catch (Throwable t) {
      warn(observation, "event", t);
    }
  }

  /** A store round trip begins. */
  IdempotencyObserver.RoundTrip roundTrip(String operation) {
    try {
      IdempotencyObserver.RoundTrip trip = observation.roundTrip(operation);
      return trip == null || trip == IdempotencyObserver.RoundTrip.NONE
          ? IdempotencyObserver.RoundTrip.NONE
          : new SafeTrip(trip);
    } catch (Throwable t) {
      warn(observation, "roundTrip", t);
      return IdempotencyObserver.RoundTrip.NONE;
    }
  }

  /** Makes the call current on this thread while its work runs. */
  IdempotencyObserver.Scope openScope() {
    try {
      IdempotencyObserver.Scope scope = observation.openScope();
      return scope == null || scope == IdempotencyObserver.Scope.NONE
          ? IdempotencyObserver.Scope.NONE
          : new SafeScope(scope);
    } catch (Throwable t) {
      warn(observation, "openScope", t);
      return IdempotencyObserver.Scope.NONE;
    }
  }

  /** The call ended; the caller got {@code error} thrown, or nothing. Only the first end counts. */
  void end(Throwable error) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    CallOutcome o = outcome;
    if (o == null) {
      o = ran ? (error == null ? CallOutcome.NOT_RECORDED : CallOutcome.FAILED) : refusedBy(error);
    }
    try {
      observation.end(o, error);
    } catch (Throwable t) {
      warn(observation, "end", t);
    }
  }

  /** A call that ended before running, with no deciding event. */
  private static CallOutcome refusedBy(Throwable error) {
    return error == null || error instanceof IdempotencyException
        ? CallOutcome.REFUSED
        : CallOutcome.STORE_FAILURE_CLOSED;
  }

  private static void warn(Object observer, String step, Throwable t) {
    LOG.warn(
        "IdempotencyObserver {} threw in {}; ignored: {}",
        observer.getClass().getName(),
        step,
        IdempotencyExecutor.describe(t));
  }

  private record SafeTrip(IdempotencyObserver.RoundTrip trip)
      implements IdempotencyObserver.RoundTrip {
    @Override
    public void end(Throwable error) {
      try {
        trip.end(error);
      } catch (Throwable t) {
        warn(trip, "RoundTrip.end", t);
      }
    }
  }

  private record SafeScope(IdempotencyObserver.Scope scope) implements IdempotencyObserver.Scope {
    @Override
    public void close() {
      try {
        scope.close();
      } catch (Throwable t) {
        warn(scope, "Scope.close", t);
      }
    }
  }
}
