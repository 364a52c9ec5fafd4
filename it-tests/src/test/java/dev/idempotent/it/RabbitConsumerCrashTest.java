package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.tck.TestBackends;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * An idempotent RabbitMQ consumer JVM ({@link RabbitConsumerWorker}, Redis store) commits each
 * message's effect in PostgreSQL and is killed with SIGKILL after the commit and the record, before
 * its acknowledgement; RabbitMQ redelivers the message to the next consumer JVM, which replays it:
 * every message has its effect exactly once. 100 messages and one kill; {@code -Dsoak=true}: 1,000
 * messages and three kills.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RabbitConsumerCrashTest {
  private static final String RABBIT = "IDEMPOTENT_RABBIT_URL";
  private static final String LOCAL_RABBIT = "amqp://guest:guest@127.0.0.1:5672";

  @Test
  void aConsumerKilledBetweenItsRecordAndItsAckHasEveryEffectExactlyOnce() throws Exception {
    boolean soak = Boolean.getBoolean("soak");
    int messages = soak ? 1_000 : 100;
    int kills = soak ? 3 : 1;
    Optional<String> rabbitUrl = TestBackends.configuredOrLocal(RABBIT, LOCAL_RABBIT, 5672);
    if (rabbitUrl.isEmpty()) {
      TestBackends.unavailable(
          RABBIT + " is not set and nothing answers on 127.0.0.1:5672",
          "start RabbitMQ or set " + RABBIT + "=" + LOCAL_RABBIT);
    }
    String redis = TestEnvironment.redisUrl();
    String postgres = TestEnvironment.postgresUrl();
    String run = UUID.randomUUID().toString().substring(0, 8);
    String queue = "idempotent.crash." + run;
    String table = "idem_crash_" + run;
    Path dir = Path.of("target", "it-runs", "rabbit-crash-" + run);
    CachingConnectionFactory connections =
        new CachingConnectionFactory(URI.create(rabbitUrl.get()));
    RabbitAdmin admin = new RabbitAdmin(connections);
    try (Connection db = DriverManager.getConnection(postgres);
        Statement sql = db.createStatement()) {
      sql.execute(
          "CREATE TABLE "
              + table
              + " (id BIGSERIAL PRIMARY KEY, message_id TEXT NOT NULL, worker TEXT NOT NULL)");
      admin.declareQueue(new Queue(queue, true, false, false));
      RabbitTemplate template = new RabbitTemplate(connections);
      for (int i = 0; i < messages; i++) {
        MessageProperties properties = new MessageProperties();
        properties.setMessageId("m-" + i);
        template.send(
            "", queue, new Message(("order " + i).getBytes(StandardCharsets.UTF_8), properties));
      }
      String[] args = {
        "rabbit=" + rabbitUrl.get(),
        "queue=" + queue,
        "redis=" + redis,
        "postgres=" + postgres,
        "table=" + table,
        "scope=crash." + run
      };
      List<String> held = new ArrayList<>();
      int holdAfter = messages / (kills + 1);
      for (int k = 0; k < kills; k++) {
        try (WorkerProcess consumer =
            WorkerProcess.start(
                dir,
                "consumer-" + k,
                RabbitConsumerWorker.class,
                with(args, "holdAfter=" + holdAfter))) {
          consumer.awaitLine("READY", 60);
          if (k > 0) {
            // the message the killed consumer held comes back here first, and is replayed
            assertThat(consumer.awaitLine("OUTCOME " + held.get(k - 1) + " ", 120))
                .endsWith("replayed");
          }
          held.add(consumer.awaitLine("HOLDING ", 120).substring("HOLDING ".length()));
          consumer.kill();
        }
      }
      try (WorkerProcess last =
          WorkerProcess.start(dir, "consumer-last", RabbitConsumerWorker.class, args)) {
        last.awaitLine("READY", 60);
        assertThat(last.awaitLine("OUTCOME " + held.get(kills - 1) + " ", 120))
            .endsWith("replayed");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (distinct(sql, table) < messages && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        Thread.sleep(500);
        last.send("stop");
        last.awaitExit(30);
      }
      assertThat(held).hasSize(kills);
      assertThat(distinct(sql, table)).isEqualTo(messages);
      try (ResultSet rs =
          sql.executeQuery("SELECT count(*), count(DISTINCT message_id) FROM " + table)) {
        rs.next();
        assertThat(rs.getLong(1)).as("effects").isEqualTo(messages);
      }
      var info = admin.getQueueInfo(queue);
      assertThat(info.getMessageCount()).as("messages left in the queue").isZero();
    } finally {
      admin.deleteQueue(queue);
      try (Connection db = DriverManager.getConnection(postgres);
          Statement sql = db.createStatement()) {
        sql.execute("DROP TABLE IF EXISTS " + table);
      }
      connections.destroy();
    }
  }

  private static long distinct(Statement sql, String table) throws Exception {
    try (ResultSet rs = sql.executeQuery("SELECT count(DISTINCT message_id) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String[] with(String[] args, String more) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = more;
    return all;
  }
}
