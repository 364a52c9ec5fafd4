package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.messaging.kafka.KraftBroker;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An idempotent Kafka consumer JVM ({@link KafkaConsumerWorker}, Redis store, a broker started in
 * this JVM) commits each record's effect in PostgreSQL and is killed with SIGKILL after the commit
 * and the record, before its offset is committed; the next consumer JVM of the group gets the
 * record again once the dead member's short session ends, and replays it: every record has its
 * effect exactly once. 100 records and one kill; {@code -Dsoak=true}: 1,000 records and three
 * kills.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KafkaConsumerCrashTest {
  @Test
  void aConsumerKilledBetweenItsRecordAndItsCommitHasEveryEffectExactlyOnce() throws Exception {
    boolean soak = Boolean.getBoolean("soak");
    int records = soak ? 1_000 : 100;
    int kills = soak ? 3 : 1;
    String redis = TestEnvironment.redisUrl();
    String postgres = TestEnvironment.postgresUrl();
    String run = UUID.randomUUID().toString().substring(0, 8);
    String topic = "crash-" + run;
    String table = "idem_kafka_crash_" + run;
    Path dir = Path.of("target", "it-runs", "kafka-crash-" + run);
    try (KraftBroker broker = KraftBroker.start();
        Connection db = DriverManager.getConnection(postgres);
        Statement sql = db.createStatement()) {
      sql.execute(
          "CREATE TABLE "
              + table
              + " (id BIGSERIAL PRIMARY KEY, message_id TEXT NOT NULL, worker TEXT NOT NULL)");
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
        admin
            .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
              new StringSerializer(),
              new StringSerializer())) {
        for (int i = 0; i < records; i++) {
          producer.send(new ProducerRecord<>(topic, "m-" + i));
        }
        producer.flush();
      }
      String[] args = {
        "bootstrap=" + broker.bootstrapServers(),
        "topic=" + topic,
        "group=orders",
        "redis=" + redis,
        "postgres=" + postgres,
        "table=" + table,
        "scope=kafka-crash." + run
      };
      List<String> held = new ArrayList<>();
      int holdAfter = records / (kills + 1);
      for (int k = 0; k < kills; k++) {
        String[] withHold = Arrays.copyOf(args, args.length + 1);
        withHold[args.length] = "holdAfter=" + holdAfter;
        try (WorkerProcess consumer =
            WorkerProcess.start(dir, "consumer-" + k, KafkaConsumerWorker.class, withHold)) {
          consumer.awaitLine("READY", 60);
          if (k > 0) {
            // the record the killed consumer held comes back here first, and is replayed
            assertThat(consumer.awaitLine("OUTCOME " + held.get(k - 1) + " ", 120))
                .endsWith("replayed");
          }
          held.add(consumer.awaitLine("HOLDING ", 120).substring("HOLDING ".length()));
          consumer.kill();
        }
      }
      try (WorkerProcess last =
          WorkerProcess.start(dir, "consumer-last", KafkaConsumerWorker.class, args)) {
        last.awaitLine("READY", 60);
        assertThat(last.awaitLine("OUTCOME " + held.get(kills - 1) + " ", 120))
            .endsWith("replayed");
        last.awaitLine("OUTCOME m-" + (records - 1) + " ", 300);
        last.send("stop");
        last.awaitExit(30);
      }
      assertThat(held).hasSize(kills);
      try (ResultSet rs =
          sql.executeQuery("SELECT count(*), count(DISTINCT message_id) FROM " + table)) {
        rs.next();
        assertThat(rs.getLong(2)).as("records with an effect").isEqualTo(records);
        assertThat(rs.getLong(1)).as("effects").isEqualTo(records);
      }
    } finally {
      try (Connection db = DriverManager.getConnection(postgres);
          Statement sql = db.createStatement()) {
        sql.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }
}
