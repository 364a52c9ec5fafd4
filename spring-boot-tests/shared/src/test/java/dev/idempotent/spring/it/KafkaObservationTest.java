package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.kafka.KraftBrokerProcess;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyObservationAutoConfiguration;
import dev.idempotent.spring.messaging.IdempotentKafkaAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * A Kafka record through a real broker (KRaft, in a JVM of its own) and the listener container the
 * starter wraps is one {@code idempotent.call} observation in the application's registry, with
 * {@code adapter=kafka}: executed for the first record, replayed for a second record the producer
 * sent with the same {@value MessageKey#HEADER} header; on Redis and PostgreSQL.
 */
class KafkaObservationTest {
  private static KraftBrokerProcess broker;

  private final TestObservationRegistry registry = TestObservationRegistry.create();

  @BeforeAll
  static void broker() throws Exception {
    broker = KraftBrokerProcess.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  private ApplicationContextRunner runner() {
    String run = UUID.randomUUID().toString();
    return new ApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withConfiguration(
            AutoConfigurations.of(
                StarterAutoConfigurations.firstPresent(
                    "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration",
                    "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"),
                IdempotentKafkaAutoConfiguration.class,
                IdempotencyObservationAutoConfiguration.class))
        .withBean(ObservationRegistry.class, () -> registry)
        .withUserConfiguration(OrdersListener.class)
        .withPropertyValues(
            "spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
            "spring.kafka.consumer.auto-offset-reset=earliest",
            "observed.topic=orders-" + run,
            "observed.group=observed-" + run,
            "idempotent.messaging.kafka.enabled=true");
  }

  static class OrdersListener {
    final AtomicInteger runs = new AtomicInteger();

    @KafkaListener(id = "observed", groupId = "${observed.group}", topics = "${observed.topic}")
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
          KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
          String topic = context.getEnvironment().getProperty("observed.topic");
          byte[] key = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
          for (int i = 0; i < 2; i++) {
            ProducerRecord<Object, Object> record = new ProducerRecord<>(topic, "2 books");
            record.headers().add(MessageKey.HEADER, key);
            template.send(record).get(30, TimeUnit.SECONDS);
          }
          // both records consumed: two observations, else the assertion below says what came
          long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
          while (!twoCalls() && System.nanoTime() < deadline) {
            Thread.sleep(50);
          }
          assertThat(context.getBean(OrdersListener.class).runs).hasValue(1);

          ObservedCalls.assertExecutedThenReplayed(registry, "kafka");
        });
  }

  private boolean twoCalls() {
    try {
      TestObservationRegistryAssert.assertThat(registry)
          .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2);
      return true;
    } catch (AssertionError notYet) {
      return false;
    }
  }

  @Test
  void aRecordIsObservedOnRedis() {
    aRecordIsObserved(
        runner().withPropertyValues("idempotent.redisson.address=" + TestServices.redis()),
        "RedissonIdempotencyStore");
  }

  @Test
  void aRecordIsObservedOnPostgres() {
    aRecordIsObserved(
        runner()
            .withPropertyValues(
                "idempotent.jdbc.url=" + TestServices.postgres(),
                "idempotent.jdbc.create-table=true"),
        "JdbcIdempotencyStore");
  }
}
