package dev.idempotent.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the observation of an idempotent call; {@link
 * DefaultIdempotentCallObservationConvention} is the default. An application's own is given to
 * {@link ObservationIdempotencyObserver.Builder#convention}.
 */
public interface IdempotentCallObservationConvention
    extends ObservationConvention<IdempotentCallContext> {
  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof IdempotentCallContext;
  }
}
