package dev.idempotent.examples.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.kafka.IdempotentKafkaRecordListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;

/**
 * The Kafka example: an order consumer on Spring for Apache Kafka's listener container, wrapped by
 * {@link IdempotentKafkaRecordListener}, on the in-process store. It publishes order records to a
 * topic of its own and prints one line per scenario; exits with status 1 if an order was placed
 * more than once.
 *
 * <p>{@code --bootstrap host:port} names the Kafka broker. The {@code demo-kafka} profile runs it
 * on a broker it starts in the JVM ({@code KafkaOrderExampleOnLocalBroker}, in the tests).
 */
public final class KafkaOrderExample {
  private final Map<String, AtomicLong> ordersPlaced = new ConcurrentHashMap<>();
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicLong replays = new AtomicLong();

  private KafkaOrderExample() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !args[0].equals("--bootstrap")) {
      System.err.println(
          "Usage: KafkaOrderExample --bootstrap host:port (a Kafka broker); or, with a broker"
              + " started in the JVM: mvn -q -Pdemo-kafka -pl examples -am package -DskipTests");
      System.exit(2);
    }
    if (!ScenarioRow.print(run(args[1]))) {
      System.exit(1);
    }
  }

  /** Runs the scenarios on the Kafka broker at {@code bootstrapServers}. */
  public static List<ScenarioRow> run(String bootstrapServers) throws Exception {
    return new KafkaOrderExample().scenarios(bootstrapServers);
  }

  private List<ScenarioRow> scenarios(String bootstrapServers) throws Exception {
    String topic = "orders-" + UUID.randomUUID(); // this run's own topic and consumer group
    String group = "order-consumer-" + UUID.randomUUID();
    DefaultKafkaProducerFactory<String, String> producers =
        new DefaultKafkaProducerFactory<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
    DefaultKafkaConsumerFactory<String, String> consumers =
        new DefaultKafkaConsumerFactory<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class));
    Idempotency idempotency =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(CaffeineIdempotencyStore.builder().build())
                .listener(this::countReplays)
                .build());
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);

      // spotless:off
      // docs/messaging.md: the Kafka example (begin)
      ContainerProperties properties = new ContainerProperties(topic);
      properties.setGroupId(group);
      properties.setMessageListener((MessageListener<String, String>) r -> placeOrder(r.value()));
      ConcurrentMessageListenerContainer<String, String> container =
          new ConcurrentMessageListenerContainer<>(consumers, properties);
      MessageIdempotency orders =
          MessageIdempotency.builder(group) // the records' scope: name it after the group
              .idempotency(idempotency)
              .build();
      IdempotentKafkaRecordListener.install(container, orders, null); // null: the default key
      // docs/messaging.md: the Kafka example (end)
      // spotless:on
      container.setRecordInterceptor(
          (record, consumer) -> {
            deliveries.incrementAndGet(); // every delivery, before the listener
            return record;
          });
      container.start();
      try {
        List<ScenarioRow> rows = new ArrayList<>();
        rows.add(producerResends(template, topic));
        rows.add(offsetReset(template, topic, admin, group, container));
        return rows;
      } finally {
        container.stop();
        admin.deleteTopics(List.of(topic));
      }
    } finally {
      producers.destroy();
    }
  }

  private ScenarioRow producerResends(KafkaTemplate<String, String> template, String topic)
      throws Exception {
    long deliveriesBefore = deliveries.get();
    long replaysBefore = replays.get();
    // two records (two offsets), both with the key that names the order
    send(template, topic, "order-2001", "order-2001");
    send(template, topic, "order-2001", "order-2001");
    return row(
        "producer resends, same Idempotency-Key", "order-2001", deliveriesBefore, replaysBefore);
  }

  private ScenarioRow offsetReset(
      KafkaTemplate<String, String> template,
      String topic,
      Admin admin,
      String group,
      ConcurrentMessageListenerContainer<String, String> container)
      throws Exception {
    long deliveriesBefore = deliveries.get();
    long replaysBefore = replays.get();
    // no header: the key is the record's topic, partition and offset
    long offset = send(template, topic, "order-2002", null);
    RabbitOrderExample.await(() -> placed("order-2002") == 1);
    // the consumer restarts from an older offset (a lost commit, an operator's reset)
    container.stop();
    rewind(admin, group, new TopicPartition(topic, 0), offset);
    container.start();
    return row(
        "offset reset, the record read again", "order-2002", deliveriesBefore, replaysBefore);
  }

  /** The listener: places the order named by the record's value; it knows nothing of duplicates. */
  private void placeOrder(String orderId) {
    ordersPlaced.computeIfAbsent(orderId, k -> new AtomicLong()).incrementAndGet();
  }

  private void countReplays(IdempotencyEvent event) {
    if (event.type() == IdempotencyEvent.Type.REPLAYED) {
      replays.incrementAndGet();
    }
  }

  private ScenarioRow row(String name, String orderId, long deliveriesBefore, long replaysBefore)
      throws InterruptedException {
    RabbitOrderExample.await(() -> placed(orderId) + replays.get() - replaysBefore >= 2);
    return new ScenarioRow(
        name, deliveries.get() - deliveriesBefore, placed(orderId), replays.get() - replaysBefore);
  }

  private long placed(String orderId) {
    AtomicLong n = ordersPlaced.get(orderId);
    return n == null ? 0 : n.get();
  }

  /** Sends a record and returns its offset. */
  private static long send(
      KafkaTemplate<String, String> template, String topic, String orderId, String key)
      throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, orderId);
    if (key != null) {
      record.headers().add(MessageKey.HEADER, key.getBytes(StandardCharsets.UTF_8));
    }
    return template.send(record).get(30, TimeUnit.SECONDS).getRecordMetadata().offset();
  }

  /** Sets the group's committed offset back (once the stopped consumer has left the group). */
  private static void rewind(Admin admin, String group, TopicPartition partition, long offset)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        admin
            .alterConsumerGroupOffsets(group, Map.of(partition, new OffsetAndMetadata(offset)))
            .all()
            .get(10, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException stillAMember) {
        if (System.nanoTime() > deadline) {
          throw stillAMember;
        }
        Thread.sleep(200);
      }
    }
  }
}
