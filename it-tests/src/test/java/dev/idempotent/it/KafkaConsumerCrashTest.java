package dev.idempotent.it;

import dev.idempotent.messaging.kafka.KraftBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An idempotent Kafka consumer JVM ({@link KafkaConsumerWorker}, on the Redis store, then on the
 * JDBC store on PostgreSQL, a broker started in this JVM) commits each record's effect in
 * PostgreSQL and is killed with SIGKILL after the commit and the record, before its offset is
 * committed; the next consumer JVM of the group gets the record again once the dead member's short
 * session ends, and replays it: every record has its effect exactly once (see {@link
 * ConsumerCrashRun}: 100 records and one kill; {@code -Dsoak=true}: 1,000 records and three kills).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KafkaConsumerCrashTest {
  @ParameterizedTest
  @EnumSource(
      value = Backend.class,
      names = {"REDIS", "POSTGRES"})
  void aConsumerKilledBetweenItsRecordAndItsCommitHasEveryEffectExactlyOnce(Backend store)
      throws Exception {
    try (ConsumerCrashRun crash = new ConsumerCrashRun("kafka", store);
        KraftBroker broker = KraftBroker.start()) {
      String topic = "crash-" + crash.run;
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
        for (int i = 0; i < crash.messages; i++) {
          producer.send(new ProducerRecord<>(topic, "m-" + i));
        }
        producer.flush();
      }
      String[] args =
          crash.args("bootstrap=" + broker.bootstrapServers(), "topic=" + topic, "group=orders");
      List<String> held = crash.killConsumers(KafkaConsumerWorker.class, args);
      try (WorkerProcess last =
          WorkerProcess.start(crash.dir(), "consumer-last", KafkaConsumerWorker.class, args)) {
        last.awaitLine("READY", 60);
        ConsumerCrashRun.assertReplayed(last, held.get(held.size() - 1));
        // one partition: the last record comes last
        last.awaitLine("OUTCOME m-" + (crash.messages - 1) + " ", 300);
        last.send("stop");
        last.awaitExit(30);
      }
      crash.assertExactlyOnce(held);
    }
  }
}
