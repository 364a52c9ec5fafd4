package dev.idempotent.micrometer;

import io.micrometer.observation.Observation;

/**
 * What the {@value DefaultIdempotentStoreObservationConvention#NAME} observation of one store round
 * trip knows: the operation ({@code claim}, {@code complete}, {@code release}) and the store's
 * name.
 */
public final class IdempotentStoreContext extends Observation.Context {
  private final String operation;
  private final String store;

  IdempotentStoreContext(String operation, String store) {
    this.operation = operation;
    this.store = store;
  }

  public String operation() {
    return operation;
  }

  public String store() {
    return store;
  }
}
