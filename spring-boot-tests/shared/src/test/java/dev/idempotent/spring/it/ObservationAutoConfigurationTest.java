package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.micrometer.ObservationIdempotencyObserver;
import dev.idempotent.spring.IdempotencyObservationAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter observes each call in the application's ObservationRegistry, on the memory store,
 * Redis and PostgreSQL; {@code idempotent.observations.enabled=false} or no registry: no observer.
 */
class ObservationAutoConfigurationTest {
  private final TestObservationRegistry registry = TestObservationRegistry.create();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withConfiguration(AutoConfigurations.of(IdempotencyObservationAutoConfiguration.class))
          .withBean(Greeter.class);

  private void aCallIsObserved(ApplicationContextRunner withStore, String store) {
    withStore
        .withBean(ObservationRegistry.class, () -> registry)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(IdempotencyConfig.class).observer())
                  .isInstanceOf(ObservationIdempotencyObserver.class);
              String name = UUID.randomUUID().toString();
              Greeter greeter = context.getBean(Greeter.class);
              greeter.greet(name);
              greeter.greet(name);
              TestObservationRegistryAssert.assertThat(registry)
                  .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2)
                  .hasAnObservation(
                      o ->
                          o.hasNameEqualTo("idempotent.call")
                              .hasLowCardinalityKeyValue("scope", "greet")
                              .hasLowCardinalityKeyValue("outcome", "executed")
                              .hasLowCardinalityKeyValue("adapter", "method")
                              .hasLowCardinalityKeyValue("store", store))
                  .hasAnObservation(
                      o ->
                          o.hasNameEqualTo("idempotent.call")
                              .hasLowCardinalityKeyValue("outcome", "replayed"))
                  .hasAnObservation(
                      o ->
                          o.hasNameEqualTo("idempotent.store")
                              .hasLowCardinalityKeyValue("operation", "claim"));
            });
  }

  @Test
  void aMethodCallIsObservedOnTheMemoryStore() {
    aCallIsObserved(runner, "default");
  }

  @Test
  void aMethodCallIsObservedOnRedis() {
    aCallIsObserved(
        runner.withPropertyValues("idempotent.redisson.address=" + TestServices.redis()),
        "default");
  }

  @Test
  void aMethodCallIsObservedOnPostgres() {
    aCallIsObserved(
        runner.withPropertyValues("idempotent.jdbc.url=" + TestServices.postgres()), "default");
  }

  @Test
  void offByPropertyOrWithoutARegistryNothingIsObserved() {
    runner
        .withBean(ObservationRegistry.class, () -> registry)
        .withPropertyValues("idempotent.observations.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(IdempotencyObserver.class);
              assertThat(context.getBean(IdempotencyConfig.class).observer())
                  .isSameAs(IdempotencyObserver.NO_OP);
            });
    runner.run(context -> assertThat(context).doesNotHaveBean(IdempotencyObserver.class));
  }
}
