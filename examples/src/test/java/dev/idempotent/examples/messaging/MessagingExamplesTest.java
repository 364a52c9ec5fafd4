package dev.idempotent.examples.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.messaging.kafka.KraftBroker;
import dev.idempotent.tck.TestBackends;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Runs each messaging example on its broker and checks the real counts: every order placed exactly
 * once, every other delivery answered with the recorded outcome (or, in Camel, skipped as a
 * duplicate).
 */
class MessagingExamplesTest {
  @Test
  void rabbitMq() throws Exception {
    String variable = "IDEMPOTENT_RABBIT_URL";
    Optional<String> url =
        TestBackends.configuredOrLocal(variable, RabbitOrderExample.LOCAL_URL, 5672);
    if (url.isEmpty()) {
      TestBackends.unavailable(
          variable + " is not set and nothing answers on 127.0.0.1:5672",
          "start RabbitMQ (rabbitmq-server -detached) or set " + variable);
    }
    List<ScenarioRow> rows = RabbitOrderExample.run(url.orElseThrow());
    assertThat(rows).hasSize(2).extracting(ScenarioRow::executions).containsOnly(1L);
    assertThat(rows.get(0))
        .isEqualTo(new ScenarioRow("producer resends, same Idempotency-Key", 2, 1, 1));
    // the duplicate was handed back at least once while the first delivery ran, then replayed
    assertThat(rows.get(1).deliveries()).isGreaterThanOrEqualTo(3);
    assertThat(rows.get(1).replays()).isEqualTo(1);
  }

  @Test
  void kafka() throws Exception {
    try (KraftBroker broker = KraftBroker.start()) {
      List<ScenarioRow> rows = KafkaOrderExample.run(broker.bootstrapServers());
      assertThat(rows)
          .containsExactly(
              new ScenarioRow("producer resends, same Idempotency-Key", 2, 1, 1),
              new ScenarioRow("offset reset, the record read again", 2, 1, 1));
    }
  }

  @Test
  void camel() throws Exception {
    assertThat(CamelOrderExample.run())
        .containsExactly(
            new ScenarioRow("producer resends, same Idempotency-Key", 2, 1, 1),
            new ScenarioRow("10 concurrent deliveries, one key", 10, 1, 9));
  }
}
