package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.nats.NatsIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The NATS store chosen by {@code idempotent.store=nats}, on the local nats-server with JetStream:
 * on a connection of its own from {@code idempotent.nats.url}, or on the application's {@code
 * Connection}; the bucket property reaches the store, a woven call replays and the health indicator
 * reports the store up.
 */
class NatsStoreTest {
  private static final String BUCKET = "it-boot-nats";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withBean(Greeter.class)
          .withPropertyValues("idempotent.store=nats", "idempotent.nats.bucket=" + BUCKET);

  @BeforeAll
  static void server() {
    TestServices.nats();
  }

  @Test
  void theUrlPropertyGivesTheStoreAConnectionOfItsOwn() {
    runner
        .withPropertyValues("idempotent.nats.url=" + TestServices.nats())
        .run(this::replaysInTheBucketAndIsUp);
  }

  @Test
  void theApplicationsConnectionIsUsedWhenItHasOne() throws Exception {
    Connection connection = Nats.connect(TestServices.nats());
    try {
      runner
          .withBean(Connection.class, () -> connection, bean -> bean.setDestroyMethodName(""))
          .run(
              context -> {
                long before = connection.getStatistics().getOutMsgs();
                replaysInTheBucketAndIsUp(context);
                assertThat(connection.getStatistics().getOutMsgs())
                    .as("messages sent on the application's connection")
                    .isGreaterThan(before);
              });
      // the store left the application's connection open
      assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
    } finally {
      connection.close();
    }
  }

  private void replaysInTheBucketAndIsUp(AssertableApplicationContext context) throws Exception {
    assertThat(context).hasNotFailed().hasSingleBean(IdempotencyStore.class);
    IdempotencyStore store = context.getBean(IdempotencyStore.class);
    assertThat(store).isInstanceOf(NatsIdempotencyStore.class);
    assertThat(((NatsIdempotencyStore) store).bucket()).isEqualTo(BUCKET);
    Greeter greeter = context.getBean(Greeter.class);
    String name = UUID.randomUUID().toString();
    String first = greeter.greet(name);
    assertThat(greeter.greet(name)).isEqualTo(first);
    assertThat(greeter.executions()).isEqualTo(1);
    assertThat(store.read(RecordKey.of("greet", name))).isPresent();
    assertThat(StoreHealthStatus.of(context)).startsWith("UP ").contains("default=UP");
  }
}
