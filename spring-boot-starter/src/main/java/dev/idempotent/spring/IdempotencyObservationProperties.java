package dev.idempotent.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code idempotent.observations.*}: the observation (trace span) of each idempotent call. */
@ConfigurationProperties("idempotent.observations")
public class IdempotencyObservationProperties {
  /**
   * Whether each idempotent call is an {@code idempotent.call} observation in the application's
   * ObservationRegistry (a span in its trace, with a child span per store round trip). On by
   * default when the application has a registry; with no handler on the registry a call costs one
   * check, with a tracer it costs what a span costs.
   */
  private boolean enabled = true;

  /**
   * Whether the key's short digest is a high-cardinality value ({@code key.digest}) of the
   * observation, to find one key's calls in traces. Never the key itself.
   */
  private boolean keyDigest = false;

  /** Whether each store round trip (claim, complete, release) is a child observation. */
  private boolean storeRoundTrips = true;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isKeyDigest() {
    return keyDigest;
  }

  public void setKeyDigest(boolean keyDigest) {
    this.keyDigest = keyDigest;
  }

  public boolean isStoreRoundTrips() {
    return storeRoundTrips;
  }

  public void setStoreRoundTrips(boolean storeRoundTrips) {
    this.storeRoundTrips = storeRoundTrips;
  }
}
