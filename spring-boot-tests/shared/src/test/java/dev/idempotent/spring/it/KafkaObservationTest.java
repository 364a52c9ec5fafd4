package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.messaging.kafka.IdempotentKafkaRecordListener;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyObservationAutoConfiguration;
import dev.idempotent.spring.messaging.IdempotentKafkaAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;

/**
 * A Kafka record through the listener the starter wraps is one {@code idempotent.call} observation
 * in the application's registry, with {@code adapter=kafka}: executed for the first delivery,
 * replayed for its redelivery; on Redis and PostgreSQL. The record is handed to the wrapped
 * listener as its container hands it (no broker: the container is not started).
 */
class KafkaObservationTest {
  private final TestObservationRegistry registry = TestObservationRegistry.create();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withConfiguration(
              AutoConfigurations.of(
                  firstPresent(
                      "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration",
                      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"),
                  IdempotentKafkaAutoConfiguration.class,
                  IdempotencyObservationAutoConfiguration.class))
          .withBean(ObservationRegistry.class, () -> registry)
          .withUserConfiguration(OrdersListener.class)
          .withPropertyValues(
              "spring.kafka.bootstrap-servers=127.0.0.1:9",
              "idempotent.messaging.kafka.enabled=true");

  /** Kafka's auto-configuration, in the package of the Boot line on the class path. */
  private static Class<?> firstPresent(String... names) {
    for (String name : names) {
      try {
        return Class.forName(name);
      } catch (ClassNotFoundException e) {
        // the other Boot line's package: try the next name
      }
    }
    throw new IllegalStateException("none of " + List.of(names) + " is on the class path");
  }

  static class OrdersListener {
    final AtomicInteger runs = new AtomicInteger();

    @KafkaListener(id = "observed", groupId = "observed", topics = "orders", autoStartup = "false")
    void onOrder(ConsumerRecord<String, String> record) {
      runs.incrementAndGet();
    }
  }

  @SuppressWarnings("unchecked")
  private void aRecordIsObserved(ApplicationContextRunner withStore, String storeClass) {
    withStore.run(
        context -> {
          assertThat(context).hasNotFailed();
          IdempotencyStore store = context.getBean(IdempotencyConfig.class).defaultStore();
          assertThat(store.getClass().getSimpleName()).isEqualTo(storeClass);
          IdempotentKafkaRecordListener<String, String> listener =
              (IdempotentKafkaRecordListener<String, String>)
                  context
                      .getBean(KafkaListenerEndpointRegistry.class)
                      .getListenerContainer("observed")
                      .getContainerProperties()
                      .getMessageListener();
          // a fresh offset per run, so that a record recorded by an earlier run is no repeat
          long offset = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE / 2);
          ConsumerRecord<String, String> record =
              new ConsumerRecord<>("orders", 0, offset, null, "2 books");
          listener.onMessage(record);
          listener.onMessage(record);
          assertThat(context.getBean(OrdersListener.class).runs).hasValue(1);

          TestObservationRegistryAssert.assertThat(registry)
              .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2)
              .hasAnObservation(
                  o ->
                      o.hasNameEqualTo("idempotent.call")
                          .hasLowCardinalityKeyValue("adapter", "kafka")
                          .hasLowCardinalityKeyValue("outcome", "executed")
                          .hasLowCardinalityKeyValue("store", "default"))
              .hasAnObservation(
                  o ->
                      o.hasNameEqualTo("idempotent.call")
                          .hasLowCardinalityKeyValue("adapter", "kafka")
                          .hasLowCardinalityKeyValue("outcome", "replayed")
                          .hasLowCardinalityKeyValue("store", "default"));
        });
  }

  @Test
  void aRecordIsObservedOnRedis() {
    aRecordIsObserved(
        runner.withPropertyValues("idempotent.redisson.address=" + TestServices.redis()),
        "RedissonIdempotencyStore");
  }

  @Test
  void aRecordIsObservedOnPostgres() {
    aRecordIsObserved(
        runner.withPropertyValues("idempotent.jdbc.url=" + TestServices.postgres()),
        "JdbcIdempotencyStore");
  }
}
