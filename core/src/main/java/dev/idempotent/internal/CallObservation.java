package dev.idempotent.internal;

import dev.idempotent.CallOutcome;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.spi.RecordKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link IdempotencyObserver.Call} of one {@link Call}, guarded: an observer's exception is
 * logged and ignored, never the call's. With {@link IdempotencyObserver#NO_OP} every step is an
 * empty call and nothing is allocated.
 */
final class CallObservation {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  /** Observes nothing. */
  static final CallObservation NONE = new CallObservation(IdempotencyObserver.Call.NONE);

  private final IdempotencyObserver.Call observed;

  private CallObservation(IdempotencyObserver.Call observed) {
    this.observed = observed;
  }

  static CallObservation start(IdempotencyObserver observer, OperationPlan plan, RecordKey key) {
    if (observer == IdempotencyObserver.NO_OP) {
      return NONE;
    }
    try {
      IdempotencyObserver.Call call =
          observer.start(plan.scope, plan.storeName, plan.adapter, key.redactedKey());
      return call == null || call == IdempotencyObserver.Call.NONE
          ? NONE
          : new CallObservation(call);
    } catch (Throwable t) {
      warn(observer, "start", t);
      return NONE;
    }
  }

  boolean observes() {
    return this != NONE;
  }

  void event(IdempotencyEvent.Type type) {
    if (this == NONE) {
      return;
    }
    try {
      observed.event(type);
    } catch (Throwable t) {
      warn(observed, "event", t);
    }
  }

  IdempotencyObserver.RoundTrip roundTrip(String operation) {
    if (this == NONE) {
      return IdempotencyObserver.RoundTrip.NONE;
    }
    IdempotencyObserver.RoundTrip trip;
    try {
      trip = observed.roundTrip(operation);
    } catch (Throwable t) {
      warn(observed, "roundTrip", t);
      return IdempotencyObserver.RoundTrip.NONE;
    }
    return guarded(trip);
  }

  IdempotencyObserver.RoundTrip waitForKey() {
    if (this == NONE) {
      return IdempotencyObserver.RoundTrip.NONE;
    }
    IdempotencyObserver.RoundTrip wait;
    try {
      wait = observed.waitForKey();
    } catch (Throwable t) {
      warn(observed, "waitForKey", t);
      return IdempotencyObserver.RoundTrip.NONE;
    }
    return guarded(wait);
  }

  /** {@code trip}, whose end never throws. */
  private static IdempotencyObserver.RoundTrip guarded(IdempotencyObserver.RoundTrip trip) {
    if (trip == null || trip == IdempotencyObserver.RoundTrip.NONE) {
      return IdempotencyObserver.RoundTrip.NONE;
    }
    return error -> {
      try {
        trip.end(error);
      } catch (Throwable t) {
        warn(trip, "RoundTrip.end", t);
      }
    };
  }

  IdempotencyObserver.Scope openScope() {
    if (this == NONE) {
      return IdempotencyObserver.Scope.NONE;
    }
    IdempotencyObserver.Scope scope;
    try {
      scope = observed.openScope();
    } catch (Throwable t) {
      warn(observed, "openScope", t);
      return IdempotencyObserver.Scope.NONE;
    }
    if (scope == null || scope == IdempotencyObserver.Scope.NONE) {
      return IdempotencyObserver.Scope.NONE;
    }
    return () -> {
      try {
        scope.close();
      } catch (Throwable t) {
        warn(scope, "Scope.close", t);
      }
    };
  }

  void end(CallOutcome outcome, Throwable error) {
    if (this == NONE) {
      return;
    }
    try {
      observed.end(outcome, error);
    } catch (Throwable t) {
      warn(observed, "end", t);
    }
  }

  private static void warn(Object observer, String step, Throwable t) {
    LOG.warn(
        "IdempotencyObserver {} threw in {}; ignored: {}",
        observer.getClass().getName(),
        step,
        Protocol.describe(t));
  }
}
