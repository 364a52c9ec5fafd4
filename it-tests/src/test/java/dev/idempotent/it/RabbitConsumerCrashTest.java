package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.tck.TestBackends;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * An idempotent RabbitMQ consumer JVM ({@link RabbitConsumerWorker}, on the Redis store, then on
 * the JDBC store on PostgreSQL) commits each message's effect in PostgreSQL and is killed with
 * SIGKILL after the commit and the record, before its acknowledgement; RabbitMQ redelivers the
 * message to the next consumer JVM, which replays it: every message has its effect exactly once
 * (see {@link ConsumerCrashRun}: 100 messages and one kill; {@code -Dsoak=true}: 1,000 messages and
 * three kills).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RabbitConsumerCrashTest {
  private static final String RABBIT = "IDEMPOTENT_RABBIT_URL";
  private static final String LOCAL_RABBIT = "amqp://guest:guest@127.0.0.1:5672";

  @ParameterizedTest
  @EnumSource(
      value = Backend.class,
      names = {"REDIS", "POSTGRES"})
  void aConsumerKilledBetweenItsRecordAndItsAckHasEveryEffectExactlyOnce(Backend store)
      throws Exception {
    Optional<String> rabbitUrl = TestBackends.configuredOrLocal(RABBIT, LOCAL_RABBIT, 5672);
    if (rabbitUrl.isEmpty()) {
      TestBackends.unavailable(
          RABBIT + " is not set and nothing answers on 127.0.0.1:5672",
          "start RabbitMQ or set " + RABBIT + "=" + LOCAL_RABBIT);
    }
    CachingConnectionFactory connections =
        new CachingConnectionFactory(URI.create(rabbitUrl.get()));
    RabbitAdmin admin = new RabbitAdmin(connections);
    try (ConsumerCrashRun crash = new ConsumerCrashRun("rabbit", store)) {
      String queue = "idempotent.crash." + crash.run;
      try {
        admin.declareQueue(new Queue(queue, true, false, false));
        RabbitTemplate template = new RabbitTemplate(connections);
        for (int i = 0; i < crash.messages; i++) {
          MessageProperties properties = new MessageProperties();
          properties.setMessageId("m-" + i);
          template.send(
              "", queue, new Message(("order " + i).getBytes(StandardCharsets.UTF_8), properties));
        }
        String[] args = crash.args("rabbit=" + rabbitUrl.get(), "queue=" + queue);
        List<String> held = crash.killConsumers(RabbitConsumerWorker.class, args);
        try (WorkerProcess last =
            WorkerProcess.start(crash.dir(), "consumer-last", RabbitConsumerWorker.class, args)) {
          last.awaitLine("READY", 60);
          ConsumerCrashRun.assertReplayed(last, held.get(held.size() - 1));
          crash.awaitEveryEffect(Duration.ofMinutes(5));
          // a duplicate effect would still have time to show
          Thread.sleep(500);
          last.send("stop");
          last.awaitExit(30);
        }
        crash.assertExactlyOnce(held);
        var info = admin.getQueueInfo(queue);
        assertThat(info.getMessageCount()).as("messages left in the queue").isZero();
      } finally {
        admin.deleteQueue(queue);
      }
    } finally {
      connections.destroy();
    }
  }
}
