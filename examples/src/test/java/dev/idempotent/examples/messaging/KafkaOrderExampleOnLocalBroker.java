package dev.idempotent.examples.messaging;

import dev.idempotent.messaging.kafka.KraftBroker;

/**
 * Runs {@link KafkaOrderExample} on a Kafka broker started in this JVM (one KRaft node on
 * 127.0.0.1, from messaging-kafka's test jar), for the {@code demo-kafka} profile: the Kafka
 * server's jars are on the examples' test class path only.
 */
public final class KafkaOrderExampleOnLocalBroker {
  private KafkaOrderExampleOnLocalBroker() {}

  public static void main(String[] args) throws Exception {
    boolean once;
    try (KraftBroker broker = KraftBroker.start()) {
      once = ScenarioRow.print(KafkaOrderExample.run(broker.bootstrapServers()));
    }
    if (!once) {
      System.exit(1);
    }
  }
}
