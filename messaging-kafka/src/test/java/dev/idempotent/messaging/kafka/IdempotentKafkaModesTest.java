package dev.idempotent.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.OnAmbiguousFailure;
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
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.GenericMessageListener;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The wrappers in the container's modes (transactions, BLOCK, MANUAL acknowledgement, topics of one
 * group, header bytes) on a real Kafka broker started in this JVM.
 */
class IdempotentKafkaModesTest {
  private static final String SCOPE = "orders.consumer";
  private static KraftBroker broker;
  private static DefaultKafkaProducerFactory<String, String> producerFactory;
  private static DefaultKafkaProducerFactory<String, String> txProducerFactory;
  private static KafkaTemplate<String, String> template;
  private static Admin admin;

  private final List<ConcurrentMessageListenerContainer<String, String>> containers =
      new ArrayList<>();
  private Idempotency idempotency;
  private String topic;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KraftBroker.start();
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producerFactory = new DefaultKafkaProducerFactory<>(config);
    template = new KafkaTemplate<>(producerFactory);
    txProducerFactory = new DefaultKafkaProducerFactory<>(config);
    txProducerFactory.setTransactionIdPrefix("orders-tx-");
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
    if (txProducerFactory != null) {
      txProducerFactory.destroy();
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
    createTopics(topic, topic + "-out", topic + "-other");
  }

  @AfterEach
  void tearDown() {
    containers.forEach(ConcurrentMessageListenerContainer::stop);
  }

  // --- transactions (read-process-write) ---

  @Test
  void aTransactionalRecordIsRecordedWhenItsTransactionCommitsAndNotWhenItsCommitFails()
      throws Exception {
    KafkaTransactionManager<String, String> failingOnce =
        new KafkaTransactionManager<>(txProducerFactory) {
          private final AtomicInteger commits = new AtomicInteger();

          @Override
          protected void doCommit(DefaultTransactionStatus status) {
            if (commits.incrementAndGet() == 1) {
              doRollback(status);
              throw new TransactionSystemException("the first transaction cannot commit");
            }
            super.doCommit(status);
          }
        };
    KafkaTemplate<String, String> out = new KafkaTemplate<>(txProducerFactory);
    AtomicInteger runs = new AtomicInteger();
    List<Boolean> recordedInListener = new CopyOnWriteArrayList<>();
    MessageListener<String, String> listener =
        r -> {
          runs.incrementAndGet();
          out.send(topic + "-out", r.value());
          recordedInListener.add(completed("idempotency-key:order-1"));
        };
    ContainerProperties properties = containerProperties("g1", listener);
    properties.setKafkaAwareTransactionManager(failingOnce);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(30_000), properties);
    IdempotentKafkaRecordListener.install(container, consumer(Duration.ofSeconds(1)), null);
    containers.add(container);
    container.start();
    send(topic, "charge", "order-1");
    await(() -> committed("g1", topic) == 1);
    assertThat(runs).hasValue(2); // the failed commit released the key: the redelivery ran
    assertThat(recordedInListener).containsExactly(false, false);
    assertThat(completed("idempotency-key:order-1")).isTrue();
    // the transaction's markers reach the output partition after its offsets are visible
    await(() -> !committedOutputs().isEmpty());
    assertThat(committedOutputs()).containsExactly("charge");
  }

  @Test
  void aConsumerFencedAfterOverrunningMaxPollIntervalLeavesTheRecordToTheNewOwner()
      throws Exception {
    KafkaTemplate<String, String> out = new KafkaTemplate<>(txProducerFactory);
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    AtomicInteger secondDeliveries = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    MessageListener<String, String> slow =
        r -> {
          runs.incrementAndGet();
          out.send(topic + "-out", r.value() + "-by-first");
          firstRunning.countDown();
          try {
            releaseFirst.await(60, TimeUnit.SECONDS); // overruns max.poll.interval.ms (2 s)
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    MessageListener<String, String> fast =
        r -> {
          runs.incrementAndGet();
          out.send(topic + "-out", r.value() + "-by-second");
        };
    Function<ConsumerRecord<?, ?>, String> headerKey = r -> "order-1";
    Function<ConsumerRecord<?, ?>, String> countingKey =
        r -> {
          secondDeliveries.incrementAndGet();
          return "order-1";
        };
    transactional("g1", slow, consumer(Duration.ofMillis(500)), headerKey, 2_000).start();
    send(topic, "charge", "order-1");
    assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
    transactional("g1", fast, consumer(Duration.ofMillis(500)), countingKey, 2_000).start();
    // the second consumer owns the partition now, and is handed the record back while it is held
    await(() -> secondDeliveries.get() >= 2);
    releaseFirst.countDown(); // the first returns; its transaction cannot commit any more
    await(() -> committed("g1", topic) == 1);
    // the transaction's markers reach the output partition after its offsets are visible
    await(() -> !committedOutputs().isEmpty());
    assertThat(committedOutputs()).containsExactly("charge-by-second");
    assertThat(runs).hasValue(2);
  }

  // --- AckMode: the container commits after the outcome is recorded ---

  @Test
  void everyAutomaticAckModeRunsEachKeyOnceAndCommitsEveryRecord() throws Exception {
    for (ContainerProperties.AckMode mode :
        List.of(
            ContainerProperties.AckMode.RECORD,
            ContainerProperties.AckMode.BATCH,
            ContainerProperties.AckMode.COUNT,
            ContainerProperties.AckMode.TIME,
            ContainerProperties.AckMode.COUNT_TIME)) {
      String modeTopic = topic + "-" + mode;
      createTopics(modeTopic);
      List<String> runs = new CopyOnWriteArrayList<>();
      List<Boolean> committedBeforeRun = new CopyOnWriteArrayList<>();
      ContainerProperties properties = new ContainerProperties(modeTopic);
      properties.setGroupId("g-" + mode);
      properties.setPollTimeout(200);
      properties.setAckMode(mode);
      properties.setAckCount(2);
      properties.setAckTime(200);
      properties.setMessageListener(
          (MessageListener<String, String>)
              r -> {
                runs.add(r.value());
                committedBeforeRun.add(committed("g-" + mode, modeTopic) > r.offset());
              });
      ConcurrentMessageListenerContainer<String, String> container =
          new ConcurrentMessageListenerContainer<>(consumerFactory(30_000), properties);
      String scope = SCOPE + "-" + mode;
      IdempotentKafkaRecordListener.install(
          container,
          MessageIdempotency.builder(scope)
              .idempotency(idempotency)
              .inProgressWait(Duration.ofSeconds(1))
              .build(),
          null);
      containers.add(container);
      container.start();
      send(modeTopic, "first", "k1-" + mode);
      send(modeTopic, "resend", "k1-" + mode);
      send(modeTopic, "second", "k2-" + mode);
      send(modeTopic, "third", "k3-" + mode);
      await(() -> committed("g-" + mode, modeTopic) == 4);
      assertThat(runs).as(mode.name()).containsExactly("first", "second", "third");
      assertThat(committedBeforeRun).as(mode.name()).containsOnly(false);
      assertThat(recordStatus(scope, "idempotency-key:k3-" + mode)).isEqualTo("COMPLETED");
    }
  }

  // --- DefaultErrorHandler without a recoverer ---

  @Test
  void aRecordSkippedByAnErrorHandlerWithoutRecovererLeavesItsKeyFree() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    MessageListener<String, String> listener =
        r -> {
          runs.add(r.value());
          if (r.value().equals("bad")) {
            throw new IllegalStateException("cannot book this order");
          }
        };
    ContainerProperties properties = containerProperties("g1", listener);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(30_000), properties);
    container.setCommonErrorHandler(
        new IdempotentKafkaErrorHandler(new DefaultErrorHandler(new FixedBackOff(0, 1))));
    IdempotentKafkaRecordListener.install(container, consumer(Duration.ofSeconds(1)), null);
    containers.add(container);
    container.start();
    send(topic, "bad", "order-1");
    await(() -> committed("g1", topic) == 1); // retried once, then logged and skipped
    assertThat(runs).containsExactly("bad", "bad");
    assertThat(recordStatus(SCOPE, "idempotency-key:order-1")).isEqualTo("none");
    send(topic, "fixed", "order-1"); // the producer's resend runs
    await(() -> committed("g1", topic) == 2);
    assertThat(runs).containsExactly("bad", "bad", "fixed");
  }

  // --- onAmbiguousFailure = BLOCK ---

  @Test
  void aBlockedRecordReachesTheRecovererOnceAndThePartitionMovesOn() throws Exception {
    List<Exception> recovered = new CopyOnWriteArrayList<>();
    AtomicInteger deliveries = new AtomicInteger();
    List<String> runs = new CopyOnWriteArrayList<>();
    MessageListener<String, String> listener =
        r -> {
          runs.add(r.value());
          if (r.value().equals("ambiguous")) {
            throw new IllegalStateException("the payment gateway timed out");
          }
        };
    ContainerProperties properties = containerProperties("g1", listener);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(6_000), properties);
    container.setCommonErrorHandler(
        new IdempotentKafkaErrorHandler(
            new DefaultErrorHandler((r, e) -> recovered.add(e), new FixedBackOff(0, 5))));
    IdempotentKafkaRecordListener.install(
        container,
        blocking(),
        r -> {
          deliveries.incrementAndGet();
          return new String(
              r.headers().lastHeader(MessageKey.HEADER).value(), StandardCharsets.UTF_8);
        });
    containers.add(container);
    container.start();
    send(topic, "ambiguous", "order-1");
    send(topic, "next", "order-2");
    await(() -> committed("g1", topic) == 2);
    assertThat(recovered).hasSize(1);
    assertThat(causes(recovered.get(0))).anyMatch(c -> c instanceof IdempotencyBlockedException);
    assertThat(runs).containsExactly("ambiguous", "next");
    assertThat(deliveries).hasValue(3); // run, blocked once (not retried), the next record
  }

  @Test
  void aBlockedRecordInABatchReachesTheRecovererOnceAndTheBatchMovesOn() throws Exception {
    List<Exception> recovered = new CopyOnWriteArrayList<>();
    List<String> runs = new CopyOnWriteArrayList<>();
    MessageIdempotency orders = blocking();
    // the key is blocked by an earlier ambiguous failure
    try {
      orders.handle(
          MessageKey.fromHeader("order-1", SCOPE),
          () -> {
            throw new IllegalStateException("the payment gateway timed out");
          });
    } catch (IllegalStateException expected) {
      // blocks the key
    }
    send(topic, "before", "order-0");
    send(topic, "blocked", "order-1");
    send(topic, "after", "order-2");
    BatchMessageListener<String, String> listener =
        records -> records.forEach(r -> runs.add(r.value()));
    ContainerProperties properties = containerProperties("g1", listener);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(6_000), properties);
    container.setCommonErrorHandler(
        new IdempotentKafkaErrorHandler(
            new DefaultErrorHandler((r, e) -> recovered.add(e), new FixedBackOff(0, 5))));
    IdempotentKafkaRecordListener.install(container, orders, null);
    containers.add(container);
    container.start();
    await(() -> committed("g1", topic) == 3);
    assertThat(recovered).hasSize(1);
    assertThat(causes(recovered.get(0))).anyMatch(c -> c instanceof IdempotencyBlockedException);
    assertThat(runs).containsExactly("before", "after");
  }

  // --- MANUAL acknowledgement ---

  @Test
  void manualAckRecordsOnlyAcknowledgedRecordsAndANackRunsTheRecordAgain() throws Exception {
    for (ContainerProperties.AckMode mode :
        List.of(ContainerProperties.AckMode.MANUAL, ContainerProperties.AckMode.MANUAL_IMMEDIATE)) {
      String group = "g-" + mode;
      String modeTopic = topic + "-" + mode;
      createTopics(modeTopic);
      Map<String, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();
      AcknowledgingMessageListener<String, String> listener =
          (r, ack) -> {
            int run = runs.computeIfAbsent(r.value(), v -> new AtomicInteger()).incrementAndGet();
            switch (r.value()) {
              case "nacked" -> {
                if (run == 1) {
                  ack.nack(Duration.ofMillis(10));
                } else {
                  ack.acknowledge();
                }
              }
              case "unacknowledged" -> {} // returns without acknowledge()
              default -> ack.acknowledge();
            }
          };
      ContainerProperties properties = new ContainerProperties(modeTopic);
      properties.setGroupId(group);
      properties.setMessageListener(listener);
      properties.setPollTimeout(200);
      properties.setAckMode(mode);
      ConcurrentMessageListenerContainer<String, String> container =
          new ConcurrentMessageListenerContainer<>(consumerFactory(6_000), properties);
      String scope = SCOPE + "-" + mode;
      IdempotentKafkaRecordListener.install(
          container,
          MessageIdempotency.builder(scope)
              .idempotency(idempotency)
              .inProgressWait(Duration.ofSeconds(1))
              .build(),
          null);
      containers.add(container);
      container.start();
      String n = "n-" + mode;
      String u = "u-" + mode;
      String a = "a-" + mode;
      send(modeTopic, "nacked", n);
      send(modeTopic, "unacknowledged", u);
      send(modeTopic, "acked", a);
      await(() -> committed(group, modeTopic) >= 3 && runs.containsKey("acked"));
      assertThat(runs.get("nacked")).hasValue(2); // the nack was not recorded: it ran again
      assertThat(recordStatus(scope, "idempotency-key:" + n)).isEqualTo("COMPLETED");
      assertThat(recordStatus(scope, "idempotency-key:" + u)).isEqualTo("none");
      assertThat(recordStatus(scope, "idempotency-key:" + a)).isEqualTo("COMPLETED");
    }
  }

  @Test
  void aManualBatchThatIsNotAcknowledgedIsNotRecorded() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    org.springframework.kafka.listener.BatchAcknowledgingMessageListener<String, String> listener =
        (records, ack) -> {
          records.forEach(r -> runs.add(r.value()));
          if (records.stream().noneMatch(r -> r.value().equals("unacknowledged"))) {
            ack.acknowledge();
          }
        };
    send(topic, "unacknowledged", "order-u");
    ContainerProperties properties = containerProperties("g1", listener);
    properties.setAckMode(ContainerProperties.AckMode.MANUAL);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(6_000), properties);
    IdempotentKafkaRecordListener.install(container, consumer(Duration.ofSeconds(1)), null);
    containers.add(container);
    container.start();
    await(() -> runs.contains("unacknowledged"));
    send(topic, "acked", "order-a");
    await(() -> committed("g1", topic) == 2);
    assertThat(recordStatus(SCOPE, "idempotency-key:order-u")).isEqualTo("none");
    assertThat(recordStatus(SCOPE, "idempotency-key:order-a")).isEqualTo("COMPLETED");
  }

  @Test
  void underManualAckARecordedFailureWrappedByTheListenerAdapterIsRecordedNotBlocked()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    List<Exception> recovered = new CopyOnWriteArrayList<>();
    AcknowledgingMessageListener<String, String> listener =
        (r, ack) -> {
          runs.incrementAndGet();
          throw new org.springframework.kafka.listener.ListenerExecutionFailedException(
              "Listener method threw", new OrderDeclinedException("card declined"));
        };
    ContainerProperties properties = containerProperties("g1", listener);
    properties.setAckMode(ContainerProperties.AckMode.MANUAL);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(30_000), properties);
    container.setCommonErrorHandler(
        new IdempotentKafkaErrorHandler(
            new DefaultErrorHandler((r, e) -> recovered.add(e), new FixedBackOff(0, 2))));
    IdempotentKafkaRecordListener.install(
        container,
        MessageIdempotency.builder(SCOPE)
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder()
                    .recordFailures(OrderDeclinedException.class)
                    .onAmbiguousFailure(OnAmbiguousFailure.BLOCK)
                    .build())
            .inProgressWait(Duration.ofSeconds(1))
            .build(),
        null);
    containers.add(container);
    container.start();
    send(topic, "declined", "order-1");
    await(() -> recovered.size() == 1);
    assertThat(runs).hasValue(1); // the retries replayed the recorded failure
    assertThat(causes(recovered.get(0))).anyMatch(c -> c instanceof OrderDeclinedException);
    assertThat(causes(recovered.get(0))).noneMatch(c -> c instanceof IdempotencyBlockedException);
  }

  /** A business refusal the consumer records. */
  public static final class OrderDeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OrderDeclinedException(String message) {
      super(message);
    }
  }

  // --- scope: one key space per topic ---

  @Test
  void theSameKeyOnTwoTopicsOfOneGroupIsTwoMessages() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    MessageListener<String, String> listener = r -> runs.add(r.topic() + ":" + r.value());
    ContainerProperties properties = new ContainerProperties(topic, topic + "-other");
    properties.setGroupId("g1");
    properties.setMessageListener(listener);
    properties.setPollTimeout(200);
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(6_000), properties);
    // what the Spring Boot starter installs, under the group id
    IdempotentKafkaRecordListener.install(
        container, IdempotentKafkaRecordListener.perTopic(consumer(Duration.ofSeconds(1))), null);
    containers.add(container);
    container.start();
    send(topic, "first", "order-1");
    send(topic + "-other", "second", "order-1");
    send(topic, "first again", "order-1");
    await(() -> committed("g1", topic) == 2 && committed("g1", topic + "-other") == 1);
    assertThat(runs).containsExactlyInAnyOrder(topic + ":first", topic + "-other:second");
    assertThat(recordStatus(SCOPE + "/" + topic, "idempotency-key:order-1")).isEqualTo("COMPLETED");
  }

  // --- header bytes that are not UTF-8 ---

  @Test
  void latin1KeysThatDifferOnlyInBytesThatAreNotUtf8AreTwoMessages() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    ContainerProperties properties =
        containerProperties("g1", (MessageListener<String, String>) r -> runs.add(r.value()));
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(6_000), properties);
    IdempotentKafkaRecordListener.install(container, consumer(Duration.ofSeconds(1)), null);
    containers.add(container);
    container.start();
    sendBytes("Müller", "Müller-7".getBytes(StandardCharsets.ISO_8859_1));
    sendBytes("Mäller", "Mäller-7".getBytes(StandardCharsets.ISO_8859_1));
    sendBytes("Müller again", "Müller-7".getBytes(StandardCharsets.ISO_8859_1));
    await(() -> committed("g1", topic) == 3);
    assertThat(runs).containsExactly("Müller", "Mäller");
  }

  // --- helpers ---

  private ConcurrentMessageListenerContainer<String, String> transactional(
      String group,
      MessageListener<String, String> listener,
      MessageIdempotency orders,
      Function<ConsumerRecord<?, ?>, String> keyFunction,
      int maxPollIntervalMs) {
    ContainerProperties properties = containerProperties(group, listener);
    properties.setKafkaAwareTransactionManager(new KafkaTransactionManager<>(txProducerFactory));
    ConcurrentMessageListenerContainer<String, String> container =
        new ConcurrentMessageListenerContainer<>(consumerFactory(maxPollIntervalMs), properties);
    IdempotentKafkaRecordListener.install(container, orders, keyFunction);
    containers.add(container);
    return container;
  }

  private ContainerProperties containerProperties(
      String group, GenericMessageListener<?> listener) {
    ContainerProperties properties = new ContainerProperties(topic);
    properties.setGroupId(group);
    properties.setMessageListener(listener);
    properties.setPollTimeout(200);
    return properties;
  }

  private MessageIdempotency consumer(Duration wait) {
    return MessageIdempotency.builder(SCOPE).idempotency(idempotency).inProgressWait(wait).build();
  }

  private MessageIdempotency blocking() {
    return MessageIdempotency.builder(SCOPE)
        .idempotency(idempotency)
        .settings(
            IdempotencySettings.builder().onAmbiguousFailure(OnAmbiguousFailure.BLOCK).build())
        .inProgressWait(Duration.ofSeconds(1))
        .build();
  }

  private DefaultKafkaConsumerFactory<String, String> consumerFactory(int maxPollIntervalMs) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, maxPollIntervalMs);
    return new DefaultKafkaConsumerFactory<>(config);
  }

  private void createTopics(String... names) throws Exception {
    List<NewTopic> topics = new ArrayList<>();
    for (String name : names) {
      topics.add(new NewTopic(name, 1, (short) 1));
    }
    admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
  }

  private void send(String to, String value, String key) throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(to, value);
    record.headers().add(MessageKey.HEADER, key.getBytes(StandardCharsets.UTF_8));
    template.send(record).get(30, TimeUnit.SECONDS);
  }

  private void sendBytes(String value, byte[] key) throws Exception {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, value);
    record.headers().add(MessageKey.HEADER, key);
    template.send(record).get(30, TimeUnit.SECONDS);
  }

  private long committed(String group, String of) {
    try {
      OffsetAndMetadata offset =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS)
              .get(new TopicPartition(of, 0));
      return offset == null ? -1 : offset.offset();
    } catch (Exception e) {
      return -1;
    }
  }

  /** The committed records of the output topic, read to its end. */
  private List<String> committedOutputs() {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    TopicPartition out = new TopicPartition(topic + "-out", 0);
    try (KafkaConsumer<String, String> reader =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      reader.assign(List.of(out));
      reader.seekToBeginning(List.of(out));
      long end = reader.endOffsets(List.of(out)).get(out);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (reader.position(out) < end && System.nanoTime() < deadline) {
        reader.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
    }
    return values;
  }

  private boolean completed(String key) {
    return recordStatus(SCOPE, key).equals("COMPLETED");
  }

  private String recordStatus(String scope, String key) {
    return idempotency.inspect("", scope, key).map(r -> r.status().name()).orElse("none");
  }

  private static List<Throwable> causes(Throwable t) {
    List<Throwable> causes = new ArrayList<>();
    for (Throwable c = t; c != null && causes.size() < 16; c = c.getCause()) {
      causes.add(c);
    }
    return causes;
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
}
