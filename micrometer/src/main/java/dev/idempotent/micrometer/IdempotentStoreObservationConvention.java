package dev.idempotent.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the observation of a store round trip; {@link
 * DefaultIdempotentStoreObservationConvention} is the default.
 */
public interface IdempotentStoreObservationConvention
    extends ObservationConvention<IdempotentStoreContext> {
  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof IdempotentStoreContext;
  }
}
