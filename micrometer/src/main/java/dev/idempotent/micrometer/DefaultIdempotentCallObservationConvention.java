package dev.idempotent.micrometer;

import dev.idempotent.CallOutcome;
import io.micrometer.common.KeyValues;

/**
 * The default names of the observation of an idempotent call:
 *
 * <ul>
 *   <li>name {@value #NAME}; contextual name (a span's name) {@code idempotent <scope>};
 *   <li>low-cardinality keys {@value #SCOPE}, {@value #OUTCOME} ({@link CallOutcome#tag()}, {@code
 *       unknown} until the call ended), {@value #STORE}, {@value #ADAPTER};
 *   <li>high-cardinality key {@value #KEY_DIGEST}, the key's short digest, only when asked for
 *       ({@link ObservationIdempotencyObserver.Builder#keyDigest}). The key itself never appears.
 * </ul>
 */
public class DefaultIdempotentCallObservationConvention
    implements IdempotentCallObservationConvention {
  /** The observation's name. */
  public static final String NAME = "idempotent.call";

  public static final String SCOPE = "scope";
  public static final String OUTCOME = "outcome";
  public static final String STORE = "store";
  public static final String ADAPTER = "adapter";
  public static final String KEY_DIGEST = "key.digest";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(IdempotentCallContext context) {
    return "idempotent " + context.scope();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(IdempotentCallContext context) {
    CallOutcome outcome = context.outcome();
    return KeyValues.of(
        SCOPE,
        context.scope(),
        OUTCOME,
        outcome == null ? "unknown" : outcome.tag(),
        STORE,
        context.store(),
        ADAPTER,
        context.adapter());
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(IdempotentCallContext context) {
    return context.keyDigestShown()
        ? KeyValues.of(KEY_DIGEST, context.keyDigest())
        : KeyValues.empty();
  }
}
