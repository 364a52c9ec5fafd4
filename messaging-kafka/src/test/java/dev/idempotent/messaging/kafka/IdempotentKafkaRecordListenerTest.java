package dev.idempotent.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AcknowledgingMessageListener;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.util.backoff.FixedBackOff;

/** The listener wrapper and error handler on a real Kafka broker started in this JVM. */
class IdempotentKafkaRecordListenerTest {
  private static final String SCOPE = "orders.consumer";
  private static KraftBroker broker;
  private static KafkaTemplate<String, String> template;
  private static DefaultKafkaProducerFactory<String, String> producerFactory;
  private static Admin admin;

  private final List<ConcurrentMessageListenerContainer<String, String>> containers =
      new ArrayList<>();
  private Idempotency idempotency;
  private String topic;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KraftBroker.start();
    producerFactory =
        new DefaultKafkaProducerFactory<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    template = new KafkaTemplate<>(producerFactory);
    admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (producerFactory != null) {
      producerFactory.destroy();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    idempotency =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(CaffeineIdempotencyStore.builder().build())
                .build());
    topic = "orders-" + UUID.randomUUID();
    admin
        .createTopics(
            List.of(new NewTopic(topic, 1, (short) 1), new NewTopic(topic + "-dlt", 1, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() {
    containers.forEach(ConcurrentMessageListenerContainer::stop);
  }

  @Test
  void aRecordReadAgainAtTheSameOffsetIsReplayedNotRun() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    MessageListener<String, String> listener = r -> runs.add(r.value());
    start("g1", listener, consumer(Duration.ofSeconds(2)), null, null);
    send("a", null);
    send("b", null);
    send("c", null);
    await(() -> committed("g1") == 3);
    assertThat(runs).containsExactly("a", "b", "c");
    start("g2", listener, consumer(Duration.ofSeconds(2)), null, null);
    await(() -> committed("g2") == 3);
    assertThat(runs).containsExactly("a", "b", "c");
    assertThat(idempotency.inspect("", SCOPE, "kafka:" + topic + "/0/1")).isPresent();
  }

  @Test
  void theProducersKeyHeaderCatchesAResendAtANewOffset() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start("g1", r -> runs.add(r.value()), consumer(Duration.ofSeconds(2)), null, null);
    send("first", "order-1");
    send("resend", "order-1");
    send("next", "order-2");
    await(() -> committed("g1") == 3);
    assertThat(runs).containsExactly("first", "next");
  }

  @Test
  void aRecordInProgressInAnotherConsumerIsSoughtBackAndRunsExactlyOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger deliveries = new AtomicInteger();
    Function<ConsumerRecord<?, ?>, String> counting =
        r -> {
          deliveries.incrementAndGet();
          return r.topic() + "/" + r.partition() + "/" + r.offset();
        };
    MessageListener<String, String> slow =
        r -> {
          runs.incrementAndGet();
          sleep(2_000);
        };
    start("g1", slow, consumer(Duration.ofMillis(300)), counting, null);
    start("g2", slow, consumer(Duration.ofMillis(300)), counting, null);
    send("slow", null);
    await(() -> committed("g1") == 1 && committed("g2") == 1);
    assertThat(runs).hasValue(1);
    // the second consumer was handed back while the first ran, each time after the wait bound
    assertThat(deliveries.get()).isBetween(3, 15);
  }

  @Test
  void anAlwaysFailingRecordReachesTheDeadLetterTopicWithItsClaimReleasedEachTime()
      throws Exception {
    List<Boolean> heldDuringAttempt = new CopyOnWriteArrayList<>();
    String key = "kafka:" + topic + "/0/0";
    start(
        "g1",
        r -> {
          heldDuringAttempt.add(inProgress(key));
          throw new IllegalStateException("cannot book this order");
        },
        consumer(Duration.ofSeconds(1)),
        null,
        deadLettering());
    send("bad", null);
    List<String> dead = deadLetters(1);
    assertThat(dead).containsExactly("bad");
    assertThat(heldDuringAttempt).containsExactly(true, true, true);
    assertThat(idempotency.inspect("", SCOPE, key)).isEmpty();
    await(() -> committed("g1") == 1);
  }

  /** A business refusal the consumer records, so that a repeat gets it without running. */
  public static final class OrderDeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OrderDeclinedException(String message) {
      super(message);
    }
  }

  @Test
  void aRecordedFailureWrappedByTheListenerAdapterIsRecordedAndRepeatsAreNotRun() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    MessageIdempotency orders =
        MessageIdempotency.builder(SCOPE)
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder().recordFailures(OrderDeclinedException.class).build())
            .inProgressWait(Duration.ofSeconds(1))
            .build();
    start(
        "g1",
        r -> {
          runs.incrementAndGet();
          // what a @KafkaListener method's adapter throws around the method's exception
          throw new ListenerExecutionFailedException(
              "Listener method threw", new OrderDeclinedException("card declined"));
        },
        orders,
        null,
        deadLettering());
    send("declined", "order-42");
    assertThat(deadLetters(1)).containsExactly("declined");
    assertThat(runs).hasValue(1); // the error handler's retries replayed the recorded failure
    assertThat(idempotency.inspect("", SCOPE, "idempotency-key:order-42"))
        .hasValueSatisfying(r -> assertThat(r.status().name()).isEqualTo("COMPLETED"));
    send("declined", "order-42"); // the producer's resend
    assertThat(deadLetters(2)).containsExactly("declined", "declined");
    assertThat(runs).hasValue(1);
    await(() -> committed("g1") == 2);
  }

  @Test
  void aRecordWithoutAKeyIsDeadLetteredAtOnceAndNeverRun() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    start(
        "g1",
        r -> runs.incrementAndGet(),
        consumer(Duration.ofSeconds(1)),
        r -> null,
        deadLettering());
    send("anonymous", null);
    assertThat(deadLetters(1)).containsExactly("anonymous");
    assertThat(runs).hasValue(0);
  }

  @Test
  void manualAcknowledgementsAreHeldUntilTheRecordAndReplaysAreAcknowledged() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    List<Boolean> recordedAtAck = new CopyOnWriteArrayList<>();
    AcknowledgingMessageListener<String, String> listener =
        (r, ack) -> {
          runs.add(r.value());
          ack.acknowledge();
          recordedAtAck.add(completed("idempotency-key:" + r.value()));
        };
    ContainerProperties properties = new ContainerProperties(topic);
    properties.setGroupId("g1");
    properties.setAckMode(ContainerProperties.AckMode.MANUAL_IMMEDIATE);
    properties.setMessageListener(listener);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(), properties);
    // spotless:off
    // docs/messaging.md: kafka container (begin)
    MessageIdempotency orders = MessageIdempotency.builder("orders.consumer")
        .idempotency(idempotency)                 // default: Idempotency.global()
        .inProgressWait(Duration.ofSeconds(2))    // then a record in progress is sought back
        .build();
    IdempotentKafkaRecordListener.install(container, orders, null); // null: the default key
    // docs/messaging.md: kafka container (end)
    // spotless:on
    containers.add(container);
    container.start();
    send("o-1", "o-1");
    send("o-1", "o-1");
    send("o-2", "o-2");
    await(() -> committed("g1") == 3);
    assertThat(runs).containsExactly("o-1", "o-2");
    // the listener's acknowledge() did not commit before the outcome was recorded
    assertThat(recordedAtAck).containsExactly(false, false);
  }

  @Test
  void aBatchListenerGetsOnlyTheRecordsToRunAndRepeatsAreReplayed() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    // all four records are sent before the container starts, so they tend to come in one poll
    send("first", "order-1");
    send("second", "order-2");
    send("first again", "order-1"); // a producer's resend within the poll
    send("third", "order-3");
    startBatch(
        "g1",
        records -> {
          batchSizes.add(records.size());
          records.forEach(r -> runs.add(r.value()));
        },
        consumer(Duration.ofSeconds(1)),
        null);
    await(() -> committed("g1") == 4);
    send("second again", "order-2"); // a resend in a later poll
    send("fourth", "order-4");
    await(() -> committed("g1") == 6);
    assertThat(runs).containsExactly("first", "second", "third", "fourth");
    assertThat(idempotency.inspect("", SCOPE, "idempotency-key:order-2")).isPresent();
  }

  @Test
  void aBatchStopsAtARecordInProgressElsewhereAndRunsTheRestExactlyOnce() throws Exception {
    MessageIdempotency orders = consumer(Duration.ofMillis(500));
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicInteger heldRuns = new AtomicInteger();
    Thread other =
        new Thread(
            () -> {
              try {
                orders.handle(
                    MessageKey.fromHeader("order-held", SCOPE),
                    () -> {
                      heldRuns.incrementAndGet();
                      holding.countDown();
                      finish.await();
                    });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    other.start();
    assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
    List<String> runs = new CopyOnWriteArrayList<>();
    send("before", "order-a");
    send("held", "order-held");
    send("after", "order-b");
    startBatch("g1", records -> records.forEach(r -> runs.add(r.value())), orders, null);
    await(() -> runs.contains("before"));
    Thread.sleep(1_500); // the held record is handed back, again and again, while it is held
    assertThat(runs).containsExactly("before");
    assertThat(committed("g1")).isLessThan(2);
    finish.countDown();
    other.join(10_000);
    await(() -> committed("g1") == 3);
    assertThat(runs).containsExactly("before", "after"); // the held one replayed, not run
    assertThat(heldRuns).hasValue(1);
  }

  @Test
  void aPartialBatchAcknowledgementIsRefusedAndNothingIsAcknowledged() {
    List<Boolean> sent = new CopyOnWriteArrayList<>();
    IdempotentKafkaBatchListener<String, String> listener =
        new IdempotentKafkaBatchListener<>(
            (org.springframework.kafka.listener.BatchAcknowledgingMessageListener<String, String>)
                (records, ack) -> ack.acknowledge(0),
            consumer(Duration.ofSeconds(1)),
            null);
    List<ConsumerRecord<String, String>> records =
        List.of(new ConsumerRecord<>(topic, 0, 0L, "k", "v"));
    assertThatThrownBy(() -> listener.onMessage(records, () -> sent.add(true)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("acknowledge()");
    assertThat(sent).isEmpty();
    String key = MessageKey.brokerIdentity("kafka", topic + "/0/0", SCOPE).value();
    assertThat(idempotency.inspect("", SCOPE, key)).isEmpty(); // released: the call failed
    AtomicInteger runs = new AtomicInteger();
    IdempotentKafkaBatchListener<String, String> whole =
        new IdempotentKafkaBatchListener<>(
            (org.springframework.kafka.listener.BatchAcknowledgingMessageListener<String, String>)
                (batch, ack) -> {
                  runs.incrementAndGet();
                  ack.acknowledge();
                },
            consumer(Duration.ofSeconds(1)),
            null);
    whole.onMessage(records, () -> sent.add(true));
    assertThat(runs).hasValue(1);
    assertThat(sent).containsExactly(true);
    assertThat(idempotency.inspect("", SCOPE, key)).isPresent();
  }

  @Test
  void aBatchListenerTakingThePollResultIsRefused() {
    ContainerProperties properties = new ContainerProperties(topic);
    properties.setGroupId("g1");
    properties.setMessageListener(
        new BatchMessageListener<String, String>() {
          @Override
          public void onMessage(List<ConsumerRecord<String, String>> data) {}

          @Override
          public boolean wantsPollResult() {
            return true;
          }
        });
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(), properties);
    assertThatThrownBy(
            () ->
                IdempotentKafkaRecordListener.install(
                    container, consumer(Duration.ofSeconds(1)), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ConsumerRecords");
  }

  private void startBatch(
      String group,
      BatchMessageListener<String, String> listener,
      MessageIdempotency consumer,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    ContainerProperties properties = new ContainerProperties(topic);
    properties.setGroupId(group);
    properties.setMessageListener(listener);
    properties.setPollTimeout(200);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(), properties);
    IdempotentKafkaRecordListener.install(container, consumer, keyFunction);
    containers.add(container);
    container.start();
  }

  private DefaultErrorHandler deadLettering() {
    DefaultErrorHandler handler =
        new DefaultErrorHandler(
            new DeadLetterPublishingRecoverer(
                template, (r, e) -> new TopicPartition(r.topic() + "-dlt", 0)),
            new FixedBackOff(0, 2));
    handler.addNotRetryableExceptions(IdempotencyKeyException.class);
    return handler;
  }

  private MessageIdempotency consumer(Duration wait) {
    return MessageIdempotency.builder(SCOPE).idempotency(idempotency).inProgressWait(wait).build();
  }

  private DefaultKafkaConsumerFactory<String, String> consumerFactory() {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    return new DefaultKafkaConsumerFactory<>(config);
  }

  private void start(
      String group,
      MessageListener<String, String> listener,
      MessageIdempotency consumer,
      Function<ConsumerRecord<?, ?>, String> keyFunction,
      DefaultErrorHandler errorHandler) {
    ContainerProperties properties = new ContainerProperties(topic);
    properties.setGroupId(group);
    properties.setMessageListener(listener);
    properties.setPollTimeout(200);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(), properties);
    if (errorHandler != null) {
      // spotless:off
      // docs/messaging.md: kafka error handler (begin)
      container.setCommonErrorHandler(new IdempotentKafkaErrorHandler(errorHandler)); // over your DefaultErrorHandler
      // docs/messaging.md: kafka error handler (end)
      // spotless:on
    }
    IdempotentKafkaRecordListener.install(container, consumer, keyFunction);
    containers.add(container);
    container.start();
  }

  private void send(String value, String key) throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, value);
    if (key != null) {
      record.headers().add(MessageKey.HEADER, key.getBytes(StandardCharsets.UTF_8));
    }
    template.send(record).get(30, TimeUnit.SECONDS);
  }

  private long committed(String group) {
    try {
      OffsetAndMetadata offset =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS)
              .get(new TopicPartition(topic, 0));
      return offset == null ? -1 : offset.offset();
    } catch (Exception e) {
      return -1;
    }
  }

  private List<String> deadLetters(int count) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + UUID.randomUUID());
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> reader =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      reader.subscribe(List.of(topic + "-dlt"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (values.size() < count && System.nanoTime() < deadline) {
        reader.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
    }
    return values;
  }

  private boolean inProgress(String key) {
    return idempotency
        .inspect("", SCOPE, key)
        .map(r -> r.status().name().equals("IN_PROGRESS"))
        .orElse(false);
  }

  private boolean completed(String key) {
    return idempotency
        .inspect("", SCOPE, key)
        .map(r -> r.status().name().equals("COMPLETED"))
        .orElse(false);
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 60 s");
      }
      Thread.sleep(50);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
