package dev.idempotent.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default names of the observation of a store round trip, a child of the call's: name {@value
 * #NAME}, contextual name {@code idempotent <operation>}, low-cardinality keys {@value #OPERATION}
 * ({@code claim}, {@code complete}, {@code release}) and {@value #STORE}.
 */
public class DefaultIdempotentStoreObservationConvention
    implements IdempotentStoreObservationConvention {
  /** The observation's name. */
  public static final String NAME = "idempotent.store";

  public static final String OPERATION = "operation";
  public static final String STORE = "store";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(IdempotentStoreContext context) {
    return "idempotent " + context.operation();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(IdempotentStoreContext context) {
    return KeyValues.of(OPERATION, context.operation(), STORE, context.store());
  }
}
