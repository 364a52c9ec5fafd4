package dev.idempotent.micrometer;

import dev.idempotent.CallOutcome;
import io.micrometer.observation.Observation;

/**
 * What the {@value DefaultIdempotentCallObservationConvention#NAME} observation of one call knows:
 * the scope (bounded, as the meters bound it), the store's name, the adapter, the key's short
 * digest (never the key) and, once the call ended, its {@link CallOutcome}.
 */
public final class IdempotentCallContext extends Observation.Context {
  private final String scope;
  private final String store;
  private final String adapter;
  private final String keyDigest;
  private final boolean keyDigestShown;
  private volatile CallOutcome outcome;

  IdempotentCallContext(
      String scope, String store, String adapter, String keyDigest, boolean keyDigestShown) {
    this.scope = scope;
    this.store = store;
    this.adapter = adapter;
    this.keyDigest = keyDigest;
    this.keyDigestShown = keyDigestShown;
  }

  /** The operation's scope, or {@code _other} beyond the bound on distinct scopes. */
  public String scope() {
    return scope;
  }

  /** The store's name in the configuration ({@code default} for the default store). */
  public String store() {
    return store;
  }

  /** What made the call: {@code method}, {@code http}, {@code webflux}, {@code kafka}, ... */
  public String adapter() {
    return adapter;
  }

  /** The key as a short digest; never the key. */
  public String keyDigest() {
    return keyDigest;
  }

  /** Whether the key's digest is shown as a high-cardinality value (off by default). */
  public boolean keyDigestShown() {
    return keyDigestShown;
  }

  /** How the call ended; {@code null} while it runs. */
  public CallOutcome outcome() {
    return outcome;
  }

  void outcome(CallOutcome outcome) {
    this.outcome = outcome;
  }
}
