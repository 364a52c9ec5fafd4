package dev.idempotent.spring.it;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;

/** What the Boot suites assert of a first call and its repeat in the application's registry. */
public final class ObservedCalls {
  private ObservedCalls() {}

  /**
   * Exactly two {@code idempotent.call} observations in {@code registry}, both of {@code adapter}
   * on the default store: one {@code executed}, one {@code replayed}.
   */
  public static void assertExecutedThenReplayed(TestObservationRegistry registry, String adapter) {
    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2)
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("adapter", adapter)
                    .hasLowCardinalityKeyValue("outcome", "executed")
                    .hasLowCardinalityKeyValue("store", "default"))
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("adapter", adapter)
                    .hasLowCardinalityKeyValue("outcome", "replayed")
                    .hasLowCardinalityKeyValue("store", "default"));
  }
}
