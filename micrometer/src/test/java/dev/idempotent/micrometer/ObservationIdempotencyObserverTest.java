package dev.idempotent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The observation of a call: its name and keys, its outcome, events and store round trips. */
class ObservationIdempotencyObserverTest {
  private final AtomicLong now = new AtomicLong();
  private final TestObservationRegistry registry = TestObservationRegistry.create();
  private final IdempotencyPolicy submit =
      IdempotencyPolicy.builder("orders.submit").resultType(String.class).build();

  private Idempotency idempotency(ObservationIdempotencyObserver observer) {
    return Idempotency.create(
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().timeSource(now::get).build())
            .timeSource(now::get)
            .observer(observer)
            .build());
  }

  /** The stopped observations' contexts and the events, in order. */
  private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

  private final List<String> events = new CopyOnWriteArrayList<>();

  {
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }

              @Override
              public void onEvent(Observation.Event event, Observation.Context context) {
                events.add(context.getName() + " " + event.getName());
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
  }

  private List<Observation.Context> named(String name) {
    return stopped.stream().filter(c -> name.equals(c.getName())).toList();
  }

  @Test
  void eachCallIsOneObservationWithItsOutcomeAndItsStoreRoundTripsAsChildren() throws Exception {
    Idempotency idempotency = idempotency(ObservationIdempotencyObserver.of(registry));
    idempotency.execute(submit, "k-1", () -> "receipt");
    idempotency.execute(submit, "k-1", () -> "other");

    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2)
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasContextualNameEqualTo("idempotent orders.submit")
                    .hasLowCardinalityKeyValue("scope", "orders.submit")
                    .hasLowCardinalityKeyValue("outcome", "executed")
                    .hasLowCardinalityKeyValue("store", "default")
                    .hasLowCardinalityKeyValue("adapter", "method")
                    .doesNotHaveHighCardinalityKeyValueWithKey("key.digest"))
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("outcome", "replayed"));

    List<Observation.Context> calls = named("idempotent.call");
    List<Observation.Context> trips = named("idempotent.store");
    assertThat(trips)
        .extracting(c -> c.getLowCardinalityKeyValue("operation").getValue())
        .containsExactly("claim", "complete", "claim");
    assertThat(trips.get(0).getParentObservation().getContextView()).isSameAs(calls.get(0));
    assertThat(trips.get(2).getParentObservation().getContextView()).isSameAs(calls.get(1));
  }

  @Test
  void aFailedCallCarriesItsErrorAndATakeOverIsAnEvent() throws Exception {
    Idempotency idempotency = idempotency(ObservationIdempotencyObserver.of(registry));
    IdempotencyClaim held =
        idempotency.claim(submit, "k-2").toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(held.runs()).isTrue();
    now.addAndGet(IdempotencyConfig.DEFAULT_LEASE.plus(Duration.ofSeconds(1)).toNanos());
    assertThatThrownBy(
            () ->
                idempotency.execute(
                    submit,
                    "k-2",
                    () -> {
                      throw new IllegalStateException("declined");
                    }))
        .isInstanceOf(IllegalStateException.class);

    TestObservationRegistryAssert.assertThat(registry)
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("outcome", "released")
                    .hasError());
    assertThat(events).contains("idempotent.call idempotent.taken_over");
    held.release().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void theKeysDigestIsAHighCardinalityValueOnlyWhenAskedForAndNeverTheKey() throws Exception {
    Idempotency idempotency =
        idempotency(ObservationIdempotencyObserver.builder(registry).keyDigest(true).build());
    idempotency.execute(submit, "customer-42-order-7", () -> "receipt");

    Observation.Context call = named("idempotent.call").get(0);
    KeyValue digest = call.getHighCardinalityKeyValue("key.digest");
    assertThat(digest).isNotNull();
    assertThat(digest.getValue()).isNotBlank().doesNotContain("customer-42-order-7");
  }

  @Test
  void scopesBeyondTheBoundAreObservedAsOther() throws Exception {
    Idempotency idempotency =
        idempotency(ObservationIdempotencyObserver.builder(registry).maxScopes(1).build());
    idempotency.execute(submit, "k", () -> "a");
    idempotency.execute(
        IdempotencyPolicy.builder("per-request/123").resultType(String.class).build(),
        "k",
        () -> "b");
    assertThat(named("idempotent.call"))
        .extracting(c -> c.getLowCardinalityKeyValue("scope").getValue())
        .containsExactly("orders.submit", "_other");
  }

  @Test
  void roundTripsCanBeLeftOutAndANoopRegistryObservesNothing() throws Exception {
    idempotency(ObservationIdempotencyObserver.builder(registry).roundTrips(false).build())
        .execute(submit, "k", () -> "a");
    assertThat(named("idempotent.call")).hasSize(1);
    assertThat(named("idempotent.store")).isEmpty();

    assertThat(
            ObservationIdempotencyObserver.of(ObservationRegistry.NOOP)
                .start("s", "default", "method", "d"))
        .isSameAs(IdempotencyObserver.Call.NONE);
  }
}
