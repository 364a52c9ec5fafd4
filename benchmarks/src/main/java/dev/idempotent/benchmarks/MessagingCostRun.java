package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REDIS_URL_VARIABLE;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.amqp.IdempotentRabbitErrorHandler;
import dev.idempotent.messaging.amqp.IdempotentRabbitListenerAdvice;
import dev.idempotent.messaging.kafka.IdempotentKafkaRecordListener;
import dev.idempotent.messaging.kafka.KraftBroker;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * Consumer throughput on RabbitMQ and Kafka: one listener whose body counts a business effect, run
 * three ways in the same container with the same acknowledgement mode:
 *
 * <ul>
 *   <li>unprotected;
 *   <li>protected by this library on the Redis store ({@link IdempotentRabbitListenerAdvice},
 *       {@link IdempotentKafkaRecordListener#install}), with the default key choice (the producer's
 *       {@value MessageKey#HEADER} header);
 *   <li>protected by a hand-written Redis de-duplication in the listener ({@link
 *       HandWrittenRedisDedup}): the same header, one claim {@code EVALSHA} ({@code SET NX PX}),
 *       the body, one completion {@code EVALSHA} (owner-checked {@code SET PX}), through the same
 *       {@code RedissonClient}.
 * </ul>
 *
 * Each measurement publishes its messages to a new queue or topic first: N distinct keys and, in
 * the second half, a share of duplicates (a resend with the same header and a new message id or
 * offset) of keys published half the run earlier, so that the first delivery has long completed.
 * Then the container starts, and the time from the first delivery entering the listener to the last
 * one returning gives messages per second. Every measurement checks its counts: every delivery
 * returned, and the body ran once per key on a protected side (once per message unprotected); a
 * wrong count stops the run.
 *
 * <p>RabbitMQ: {@code IDEMPOTENT_RABBIT_URL} (default {@code amqp://guest:guest@127.0.0.1:5672}), a
 * {@link SimpleMessageListenerContainer}, {@code AUTO} acknowledgement, prefetch 250. Kafka: a
 * broker in this JVM ({@link KraftBroker}, from messaging-kafka's test jar), a {@link
 * ConcurrentMessageListenerContainer} with one consumer per partition (assigned, so no rebalance
 * during a measurement), {@code AckMode.BATCH}. Redis: {@code IDEMPOTENT_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}), one client for both protected sides.
 *
 * <p>Every side of a broker is first warmed up, twice, in rotated orders; then the sides run one
 * after another, their order rotated each round, for the given rounds. The report gives per side
 * the median and range over the rounds of messages per second and of the JVM's CPU per message (for
 * Kafka the broker's CPU is in it, as the broker runs in this JVM), and per round the ratios
 * library/hand-written (target ≥ 0.90x) and library/unprotected. Defaults: 20,000 keys and 10%
 * duplicates per measurement, 4 consumers, 3 rounds, a warm-up of 10,000 keys per side and pass (a
 * few minutes on 2 cores); {@code --long}: 100,000 keys, 5 rounds, warm-up 30,000.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.MessagingCostRun
 *     [--long] [--messages N] [--duplicates SHARE] [--rounds N] [--consumers N] [--warmup N]
 *     [--brokers rabbitmq,kafka]
 * </pre>
 */
public final class MessagingCostRun {
  static final String RABBIT_URL_VARIABLE = "IDEMPOTENT_RABBIT_URL";
  private static final String RABBIT_DEFAULT = "amqp://guest:guest@127.0.0.1:5672";

  /** The ttl of a completed key, on both protected sides. */
  static final Duration TTL = Duration.ofMinutes(10);

  /** Warm-up passes over every side before the measured rounds. */
  private static final int WARMUP_PASSES = 2;

  /** How long a measurement may go without a delivery returning before it is called stuck. */
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final String RUN =
      Long.toString(System.currentTimeMillis(), 36)
          + Long.toString(System.nanoTime() & 0xFFFFF, 36);
  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  enum Broker {
    RABBITMQ("RabbitMQ"),
    KAFKA("Kafka");

    final String label;

    Broker(String label) {
      this.label = label;
    }
  }

  enum Side {
    UNPROTECTED("unprotected"),
    LIBRARY("library, Redis store"),
    HAND_WRITTEN("hand-written Redis de-dup");

    final String label;

    Side(String label) {
      this.label = label;
    }
  }

  /** One measurement: deliveries from the first entering the listener to the last returning. */
  record Measurement(long deliveries, double seconds, double cpuMicrosPerMessage, long gcMillis) {
    double throughput() {
      return deliveries / seconds;
    }
  }

  /** What the listeners of one measurement count; the first delivery starts the clock. */
  static final class Progress {
    final long expected;
    final LongAdder effects = new LongAdder();
    final AtomicLong returned = new AtomicLong();
    final AtomicLong firstNanos = new AtomicLong();
    final AtomicLong firstCpu = new AtomicLong();
    volatile long lastNanos;
    volatile long lastCpu;

    Progress(long expected) {
      this.expected = expected;
    }

    void entered() {
      if (firstNanos.get() == 0 && firstNanos.compareAndSet(0, System.nanoTime())) {
        firstCpu.set(PROCESS.getProcessCpuTime());
      }
    }

    void returned() {
      if (returned.incrementAndGet() == expected) {
        lastCpu = PROCESS.getProcessCpuTime();
        lastNanos = System.nanoTime();
      }
    }

    boolean done() {
      return lastNanos != 0;
    }
  }

  /** The messages of one measurement: the key of each, in the order published. */
  static List<String> keys(String tag, int distinct, double duplicateShare) {
    List<String> keys = new ArrayList<>(distinct + (int) (distinct * duplicateShare) + 1);
    double due = 0;
    int half = distinct / 2;
    for (int i = 0; i < distinct; i++) {
      keys.add("k-" + tag + "-" + i);
      if (i >= half) {
        // the duplicates, spread over the second half: a resend of the key published half the run
        // earlier
        due += 2 * duplicateShare;
        while (due >= 1) {
          keys.add("k-" + tag + "-" + (i - half));
          due -= 1;
        }
      }
    }
    return keys;
  }

  private final int messages;
  private final double duplicateShare;
  private final int consumers;
  private final RedissonClient redisson;
  private final Idempotency idempotency;
  private final IdempotencySettings settings;
  private long measurements;

  private MessagingCostRun(
      int messages, double duplicateShare, int consumers, RedissonClient redisson) {
    this.messages = messages;
    this.duplicateShare = duplicateShare;
    this.consumers = consumers;
    this.redisson = redisson;
    this.idempotency =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(
                    RedissonIdempotencyStore.builder(redisson)
                        .keyPrefix("bench:messaging:")
                        .build())
                .build());
    this.settings = IdempotencySettings.builder().ttl(TTL).lease(LEASE).build();
  }

  public static void main(String[] args) throws Exception {
    int messages = 20_000;
    double duplicates = 0.1;
    int rounds = 3;
    int consumers = 4;
    int warmup = 10_000;
    List<Broker> brokers = List.of(Broker.RABBITMQ, Broker.KAFKA);
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--long" -> {
          messages = 100_000;
          rounds = 5;
          warmup = 30_000;
        }
        case "--messages" -> messages = positive(value(args, ++i, arg), arg);
        case "--duplicates" -> {
          duplicates = Double.parseDouble(value(args, i + 1, arg));
          i++;
          if (!(duplicates >= 0 && duplicates <= 0.5)) {
            throw new IllegalArgumentException(
                "--duplicates is a share of the keys from 0 to 0.5, e.g. 0.1; was " + args[i]);
          }
        }
        case "--rounds" -> rounds = positive(value(args, ++i, arg), arg);
        case "--consumers" -> consumers = positive(value(args, ++i, arg), arg);
        case "--warmup" -> warmup = positive(value(args, ++i, arg), arg);
        case "--brokers" ->
            brokers =
                Arrays.stream(value(args, ++i, arg).split(","))
                    .map(MessagingCostRun::broker)
                    .toList();
        default ->
            throw new IllegalArgumentException(
                "unknown option '"
                    + arg
                    + "': use --long, --messages N, --duplicates SHARE, --rounds N, --consumers N,"
                    + " --warmup N, --brokers rabbitmq,kafka");
      }
    }
    if (messages < 2) {
      throw new IllegalArgumentException("--messages must be at least 2, was " + messages);
    }

    Config config = new Config();
    config.useSingleServer().setAddress(BenchmarkSettings.address(REDIS_URL_VARIABLE));
    RedissonClient redisson;
    try {
      redisson = Redisson.create(config);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot reach Redis at "
              + BenchmarkSettings.address(REDIS_URL_VARIABLE)
              + "; start one or set "
              + REDIS_URL_VARIABLE
              + ": "
              + e,
          e);
    }
    try {
      MessagingCostRun run = new MessagingCostRun(messages, duplicates, consumers, redisson);
      System.out.printf(
          Locale.ROOT,
          "MessagingCostRun %s: Java %s, %d cores; %,d keys and %.0f%% duplicates per measurement,"
              + " %d consumers, warm-up %,d keys per side, %d rounds; Redis %s%n",
          Instant.now(),
          Runtime.version(),
          Runtime.getRuntime().availableProcessors(),
          messages,
          100 * duplicates,
          consumers,
          warmup,
          rounds,
          BenchmarkSettings.address(REDIS_URL_VARIABLE));
      Map<Broker, Map<Side, List<Measurement>>> results = new LinkedHashMap<>();
      for (Broker broker : brokers) {
        try (Consumers target = run.open(broker)) {
          System.out.println(broker.label + ": " + target.description());
          // two passes, in rotated orders: the code the sides share (the client, the container) is
          // compiled by the time each side's own second pass runs
          for (int pass = 0; pass < WARMUP_PASSES; pass++) {
            for (int s = 0; s < Side.values().length; s++) {
              Side side = Side.values()[(s + pass + 1) % Side.values().length];
              Measurement m = run.measure(target, side, warmup);
              print(broker, "warm-up", side, m);
            }
          }
          Map<Side, List<Measurement>> bySide = new LinkedHashMap<>();
          for (int round = 0; round < rounds; round++) {
            for (int s = 0; s < Side.values().length; s++) {
              Side side = Side.values()[(s + round) % Side.values().length];
              Measurement m = run.measure(target, side, messages);
              bySide.computeIfAbsent(side, x -> new ArrayList<>()).add(m);
              print(broker, "round " + (round + 1), side, m);
            }
          }
          results.put(broker, bySide);
        }
      }
      report(results);
    } finally {
      redisson.shutdown();
    }
  }

  private static void print(Broker broker, String what, Side side, Measurement m) {
    System.out.printf(
        Locale.ROOT,
        "%-8s %-7s %-26s %,10.0f messages/s  %,7d in %6.2f s  CPU %6.1f µs/message  GC %4d ms%n",
        broker.label,
        what,
        side.label,
        m.throughput(),
        m.deliveries(),
        m.seconds(),
        m.cpuMicrosPerMessage(),
        m.gcMillis());
  }

  private static Broker broker(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "rabbitmq", "rabbit" -> Broker.RABBITMQ;
      case "kafka" -> Broker.KAFKA;
      default ->
          throw new IllegalArgumentException(
              "unknown broker '" + name + "': use rabbitmq or kafka");
    };
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static int positive(String text, String option) {
    int n;
    try {
      n = Integer.parseInt(text.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, was '" + text + "'");
    }
    if (n < 1) {
      throw new IllegalArgumentException(option + " must be at least 1, was " + n);
    }
    return n;
  }

  // ---- one measurement
  // -----------------------------------------------------------------------------------

  /** A broker with its publisher: runs one measurement of one side. */
  interface Consumers extends AutoCloseable {
    String description();

    /** Publishes {@code keys}, then consumes them with {@code side}'s listener until done. */
    Measurement consume(Side side, String tag, List<String> keys, Progress progress)
        throws Exception;
  }

  private Consumers open(Broker broker) throws Exception {
    return broker == Broker.RABBITMQ ? new RabbitConsumers() : new KafkaConsumers();
  }

  private Measurement measure(Consumers target, Side side, int distinct) throws Exception {
    String tag = RUN + "-" + ++measurements;
    List<String> keys = keys(tag, distinct, duplicateShare);
    Progress progress = new Progress(keys.size());
    Measurement m = target.consume(side, tag, keys, progress);
    long expectedEffects = side == Side.UNPROTECTED ? keys.size() : distinct;
    if (progress.returned.get() != keys.size() || progress.effects.sum() != expectedEffects) {
      throw new IllegalStateException(
          side.label
              + ": "
              + progress.returned.get()
              + " deliveries returned and the body ran "
              + progress.effects.sum()
              + " times; expected "
              + keys.size()
              + " deliveries and "
              + expectedEffects
              + " runs of the body ("
              + distinct
              + " keys, "
              + (keys.size() - distinct)
              + " duplicates)");
    }
    return m;
  }

  /** Waits until every delivery has returned; fails when none returns for a minute. */
  private static Measurement await(Progress progress, long gcBefore) throws InterruptedException {
    long seen = -1;
    long since = System.nanoTime();
    while (!progress.done()) {
      Thread.sleep(20);
      long now = progress.returned.get();
      if (now != seen) {
        seen = now;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > STALL_NANOS) {
        throw new IllegalStateException(
            "no delivery returned for "
                + TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS)
                + " s: "
                + now
                + " of "
                + progress.expected
                + " returned");
      }
    }
    long nanos = progress.lastNanos - progress.firstNanos.get();
    long cpu = progress.lastCpu - progress.firstCpu.get();
    return new Measurement(
        progress.expected, nanos / 1e9, cpu / 1000.0 / progress.expected, gcMillis() - gcBefore);
  }

  private MessageIdempotency messageIdempotency(Broker broker) {
    return MessageIdempotency.builder("bench.messaging." + broker.name().toLowerCase(Locale.ROOT))
        .idempotency(idempotency)
        .settings(settings)
        .build();
  }

  private HandWrittenRedisDedup handWritten(Broker broker) {
    return new HandWrittenRedisDedup(
        redisson,
        "bench:messaging:hand:" + broker.name().toLowerCase(Locale.ROOT) + ":",
        LEASE,
        TTL);
  }

  // ---- RabbitMQ
  // ------------------------------------------------------------------------------------------

  private final class RabbitConsumers implements Consumers {
    private final CachingConnectionFactory connectionFactory;
    private final RabbitAdmin admin;
    private final RabbitTemplate template;
    private final IdempotentRabbitListenerAdvice advice;
    private final HandWrittenRedisDedup dedup;
    private final String url;

    RabbitConsumers() {
      String configured = System.getenv(RABBIT_URL_VARIABLE);
      url = configured == null || configured.isBlank() ? RABBIT_DEFAULT : configured.strip();
      connectionFactory = new CachingConnectionFactory(URI.create(url));
      connectionFactory.setChannelCacheSize(2 * consumers + 2);
      admin = new RabbitAdmin(connectionFactory);
      try {
        connectionFactory.createConnection().close();
      } catch (RuntimeException e) {
        connectionFactory.destroy();
        throw new IllegalStateException(
            "cannot reach RabbitMQ at "
                + url.replaceAll("//([^/@:]*):[^/@]*@", "//$1:***@")
                + "; start one (rabbitmq-server -detached) or set "
                + RABBIT_URL_VARIABLE
                + ": "
                + e,
            e);
      }
      template = new RabbitTemplate(connectionFactory);
      advice = IdempotentRabbitListenerAdvice.builder(messageIdempotency(Broker.RABBITMQ)).build();
      dedup = handWritten(Broker.RABBITMQ);
    }

    @Override
    public String description() {
      return String.format(
          Locale.ROOT,
          "%s, SimpleMessageListenerContainer, %d consumers, prefetch 250, AUTO acknowledgement",
          url.replaceAll("//([^/@:]*):[^/@]*@", "//$1:***@"),
          consumers);
    }

    @Override
    public Measurement consume(Side side, String tag, List<String> keys, Progress progress)
        throws Exception {
      String queue = "bench.messaging." + tag;
      admin.declareQueue(new Queue(queue, false, false, false));
      SimpleMessageListenerContainer container = null;
      try {
        byte[] body = "{\"amountCents\":1299}".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < keys.size(); i++) {
          MessageProperties properties = new MessageProperties();
          properties.setMessageId("m-" + tag + "-" + i);
          properties.setHeader(MessageKey.HEADER, keys.get(i));
          properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
          template.send("", queue, new Message(body, properties));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (messageCount(queue) < keys.size()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "RabbitMQ holds "
                    + messageCount(queue)
                    + " of the "
                    + keys.size()
                    + " messages published to "
                    + queue
                    + " after 60 s");
          }
          Thread.sleep(20);
        }
        container = new SimpleMessageListenerContainer(connectionFactory);
        container.setQueueNames(queue);
        container.setConcurrentConsumers(consumers);
        container.setPrefetchCount(250);
        container.setAcknowledgeMode(AcknowledgeMode.AUTO);
        MethodInterceptor counting =
            invocation -> {
              progress.entered();
              Object result = invocation.proceed();
              progress.returned();
              return result;
            };
        MessageListener effect = m -> progress.effects.increment();
        switch (side) {
          case UNPROTECTED -> {
            container.setMessageListener(effect);
            container.setAdviceChain(counting);
          }
          case LIBRARY -> {
            container.setMessageListener(effect);
            container.setAdviceChain(counting, advice);
            container.setErrorHandler(new IdempotentRabbitErrorHandler());
          }
          case HAND_WRITTEN -> {
            container.setMessageListener(
                m -> {
                  Object key = m.getMessageProperties().getHeader(MessageKey.HEADER);
                  if (!(key instanceof String text)) {
                    throw new IllegalStateException("message without a " + MessageKey.HEADER);
                  }
                  try {
                    dedup.runOnce(text, () -> progress.effects.increment());
                  } catch (RuntimeException e) {
                    throw e;
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
            container.setAdviceChain(counting);
          }
        }
        container.afterPropertiesSet();
        long gcBefore = gcMillis();
        container.start();
        return await(progress, gcBefore);
      } finally {
        if (container != null) {
          container.stop();
          container.destroy();
        }
        admin.deleteQueue(queue);
      }
    }

    private long messageCount(String queue) {
      var info = admin.getQueueInfo(queue);
      return info == null ? 0 : info.getMessageCount();
    }

    @Override
    public void close() {
      connectionFactory.destroy();
    }
  }

  // ---- Kafka
  // ---------------------------------------------------------------------------------------------

  private final class KafkaConsumers implements Consumers {
    private final KraftBroker broker;
    private final Admin admin;
    private final MessageIdempotency library;
    private final HandWrittenRedisDedup dedup;

    KafkaConsumers() throws Exception {
      broker = KraftBroker.start();
      admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
      library = messageIdempotency(Broker.KAFKA);
      dedup = handWritten(Broker.KAFKA);
    }

    @Override
    public String description() {
      return String.format(
          Locale.ROOT,
          "KRaft broker in this JVM at %s, ConcurrentMessageListenerContainer, %d partitions and"
              + " consumers (assigned), AckMode.BATCH, max.poll.records 500",
          broker.bootstrapServers(),
          consumers);
    }

    @Override
    public Measurement consume(Side side, String tag, List<String> keys, Progress progress)
        throws Exception {
      String topic = "bench-messaging-" + tag;
      admin
          .createTopics(List.of(new NewTopic(topic, consumers, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      ConcurrentMessageListenerContainer<String, byte[]> container = null;
      try {
        publish(topic, keys);
        Map<String, Object> consumerConfig = new HashMap<>();
        consumerConfig.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + tag);
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        consumerConfig.put(
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        TopicPartitionOffset[] partitions = new TopicPartitionOffset[consumers];
        for (int i = 0; i < consumers; i++) {
          partitions[i] = new TopicPartitionOffset(topic, i, 0L);
        }
        ContainerProperties properties = new ContainerProperties(partitions);
        properties.setAckMode(ContainerProperties.AckMode.BATCH);
        org.springframework.kafka.listener.MessageListener<String, byte[]> effect =
            r -> progress.effects.increment();
        properties.setMessageListener(
            side == Side.HAND_WRITTEN
                ? (org.springframework.kafka.listener.MessageListener<String, byte[]>)
                    r -> deduplicated(r, progress)
                : effect);
        container =
            new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(consumerConfig), properties);
        container.setConcurrency(consumers);
        if (side == Side.LIBRARY) {
          IdempotentKafkaRecordListener.install(container, library, null);
        }
        // outermost, on every side: the clock and the count of returned deliveries
        @SuppressWarnings("unchecked")
        org.springframework.kafka.listener.MessageListener<String, byte[]> inner =
            (org.springframework.kafka.listener.MessageListener<String, byte[]>)
                container.getContainerProperties().getMessageListener();
        container.setupMessageListener(
            (org.springframework.kafka.listener.MessageListener<String, byte[]>)
                r -> {
                  progress.entered();
                  inner.onMessage(r);
                  progress.returned();
                });
        long gcBefore = gcMillis();
        container.start();
        return await(progress, gcBefore);
      } finally {
        if (container != null) {
          container.stop();
        }
        admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
      }
    }

    /**
     * Publishes {@code keys} to {@code topic} once its partitions have a leader, with a producer of
     * its own (a new topic's first produce requests may meet a partition without a leader, and the
     * retries of an idempotent producer across such topics could stall on sequence numbers), and
     * checks that the topic holds exactly that many records.
     */
    private void publish(String topic, List<String> keys) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!leadersElected(topic)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + topic + " has no leader after 60 s");
        }
        Thread.sleep(20);
      }
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
      p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
      byte[] body = "{\"amountCents\":1299}".getBytes(StandardCharsets.UTF_8);
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>(keys.size());
      try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
        for (String key : keys) {
          // the record's key is the message key too, so that a duplicate goes to the partition of
          // its first
          ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, body);
          record.headers().add(MessageKey.HEADER, key.getBytes(StandardCharsets.UTF_8));
          sent.add(producer.send(record));
        }
        producer.flush();
        for (java.util.concurrent.Future<?> f : sent) {
          f.get(60, TimeUnit.SECONDS);
        }
      }
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int i = 0; i < consumers; i++) {
        latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
      }
      long held = 0;
      for (var info : admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).values()) {
        held += info.offset();
      }
      if (held != keys.size()) {
        throw new IllegalStateException(
            "topic " + topic + " holds " + held + " records; " + keys.size() + " were published");
      }
    }

    private boolean leadersElected(String topic) throws Exception {
      try {
        TopicDescription description =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(60, TimeUnit.SECONDS)
                .get(topic);
        return description.partitions().size() == consumers
            && description.partitions().stream().allMatch(t -> t.leader() != null);
      } catch (java.util.concurrent.ExecutionException e) {
        return false; // not known yet
      }
    }

    private void deduplicated(ConsumerRecord<String, byte[]> record, Progress progress) {
      Header header = record.headers().lastHeader(MessageKey.HEADER);
      if (header == null || header.value() == null) {
        throw new IllegalStateException("record without a " + MessageKey.HEADER);
      }
      try {
        dedup.runOnce(
            new String(header.value(), StandardCharsets.UTF_8), () -> progress.effects.increment());
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() throws Exception {
      admin.close();
      broker.close();
    }
  }

  // ---- the report
  // ----------------------------------------------------------------------------------------

  /** The time this JVM's collectors have spent collecting so far. */
  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  private static void report(Map<Broker, Map<Side, List<Measurement>>> results) {
    System.out.println();
    System.out.println(
        "Medians over the rounds, range (min–max) in brackets; JVM CPU per message (for Kafka the"
            + " broker's included).");
    System.out.println();
    System.out.println(
        "| broker | consumer | messages/s | JVM CPU µs/message | against unprotected"
            + " (messages/s) |");
    System.out.println("|---|---|--:|--:|--:|");
    for (Map.Entry<Broker, Map<Side, List<Measurement>>> entry : results.entrySet()) {
      List<Measurement> plain = entry.getValue().get(Side.UNPROTECTED);
      for (Map.Entry<Side, List<Measurement>> row : entry.getValue().entrySet()) {
        List<Measurement> ms = row.getValue();
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %s | %s | %s |%n",
            entry.getKey().label,
            row.getKey().label,
            summary(ms, Measurement::throughput, "%,.0f"),
            summary(ms, Measurement::cpuMicrosPerMessage, "%,.1f"),
            row.getKey() == Side.UNPROTECTED
                ? "1.00x"
                : ratios(ms, plain, Measurement::throughput));
      }
    }
    System.out.println();
    System.out.println(
        "Library against the hand-written de-duplication and against the unprotected listener, the"
            + " ratio of each round (median, range in brackets); target: library/hand-written"
            + " throughput ≥ 0.90x.");
    System.out.println();
    System.out.println(
        "| broker | library/hand-written messages/s | library/hand-written CPU per message |"
            + " library/unprotected messages/s | ≥ 0.90x |");
    System.out.println("|---|--:|--:|--:|---|");
    for (Map.Entry<Broker, Map<Side, List<Measurement>>> entry : results.entrySet()) {
      List<Measurement> library = entry.getValue().get(Side.LIBRARY);
      List<Measurement> hand = entry.getValue().get(Side.HAND_WRITTEN);
      List<Measurement> plain = entry.getValue().get(Side.UNPROTECTED);
      double ratio = median(ratioList(library, hand, Measurement::throughput));
      System.out.printf(
          Locale.ROOT,
          "| %s | %s | %s | %s | %s |%n",
          entry.getKey().label,
          ratios(library, hand, Measurement::throughput),
          ratios(library, hand, Measurement::cpuMicrosPerMessage),
          ratios(library, plain, Measurement::throughput),
          ratio >= 0.9 ? "PASS" : "MISS");
    }
  }

  private static String summary(
      List<Measurement> ms, ToDoubleFunction<Measurement> metric, String format) {
    double[] values = ms.stream().mapToDouble(metric).sorted().toArray();
    return String.format(Locale.ROOT, format, median(values))
        + " ("
        + String.format(Locale.ROOT, format, values[0])
        + "–"
        + String.format(Locale.ROOT, format, values[values.length - 1])
        + ")";
  }

  private static double[] ratioList(
      List<Measurement> a, List<Measurement> b, ToDoubleFunction<Measurement> metric) {
    double[] r = new double[a.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = metric.applyAsDouble(a.get(i)) / metric.applyAsDouble(b.get(i));
    }
    Arrays.sort(r);
    return r;
  }

  private static String ratios(
      List<Measurement> a, List<Measurement> b, ToDoubleFunction<Measurement> metric) {
    double[] r = ratioList(a, b, metric);
    return String.format(Locale.ROOT, "%.2fx (%.2f–%.2f)", median(r), r[0], r[r.length - 1]);
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
