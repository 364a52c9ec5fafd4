package dev.idempotent.examples.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.amqp.IdempotentRabbitErrorHandler;
import dev.idempotent.messaging.amqp.IdempotentRabbitListenerAdvice;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * The RabbitMQ example: an order consumer on Spring AMQP's {@link SimpleMessageListenerContainer}
 * (what {@code @RabbitListener} uses) with {@link IdempotentRabbitListenerAdvice} first in its
 * advice chain, on the in-process store. It publishes order messages to a queue of its own and
 * prints one line per scenario; exits with status 1 if an order was placed more than once.
 *
 * <p>RabbitMQ: {@code IDEMPOTENT_RABBIT_URL}, else {@value #LOCAL_URL}.
 */
public final class RabbitOrderExample {
  static final String LOCAL_URL = "amqp://guest:guest@127.0.0.1:5672";

  private final Map<String, AtomicLong> ordersPlaced = new ConcurrentHashMap<>();
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicLong replays = new AtomicLong();
  private volatile Duration work = Duration.ZERO;

  private RabbitOrderExample() {}

  public static void main(String[] args) throws Exception {
    String url = System.getenv("IDEMPOTENT_RABBIT_URL");
    List<ScenarioRow> rows = run(url == null || url.isBlank() ? LOCAL_URL : url);
    if (!ScenarioRow.print(rows)) {
      System.exit(1);
    }
  }

  /** Runs the scenarios on the RabbitMQ at {@code url} ({@code amqp://user:password@host:port}). */
  public static List<ScenarioRow> run(String url) throws Exception {
    return new RabbitOrderExample().scenarios(url);
  }

  private List<ScenarioRow> scenarios(String url) throws Exception {
    CachingConnectionFactory connections = new CachingConnectionFactory(URI.create(url));
    SimpleMessageListenerContainer container = null;
    try {
      RabbitAdmin admin = new RabbitAdmin(connections);
      // this run's own queue: not durable, deleted when its consumers stop
      String queue =
          admin.declareQueue(new Queue("orders.example." + UUID.randomUUID(), false, false, true));
      RabbitTemplate template = new RabbitTemplate(connections);
      Idempotency idempotency =
          Idempotency.create(
              IdempotencyConfig.builder()
                  .defaultStore(CaffeineIdempotencyStore.builder().build())
                  .listener(this::countReplays)
                  .build());

      // spotless:off
      // docs/messaging.md: the RabbitMQ example (begin)
      MessageIdempotency orders =
          MessageIdempotency.builder("orders.consumer") // the records' scope: name the consumer
              .idempotency(idempotency)
              .inProgressWait(Duration.ofMillis(200)) // then a duplicate in progress is requeued
              .build();
      container = new SimpleMessageListenerContainer(connections);
      container.setQueueNames(queue);
      container.setConcurrentConsumers(2); // a duplicate may arrive while the first one runs
      container.setPrefetchCount(1);
      container.setAdviceChain(IdempotentRabbitListenerAdvice.builder(orders).build());
      container.setErrorHandler(new IdempotentRabbitErrorHandler());
      container.setMessageListener(this::placeOrder);
      // docs/messaging.md: the RabbitMQ example (end)
      // spotless:on
      container.setAfterReceivePostProcessors(
          m -> {
            deliveries.incrementAndGet(); // every delivery, before the advice
            return m;
          });
      container.afterPropertiesSet();
      container.start();

      List<ScenarioRow> rows = new ArrayList<>();
      rows.add(
          scenario(
              "producer resends, same Idempotency-Key",
              "order-1001",
              () -> {
                // two publications, each with a message id of its own; the key names the order
                template.send(queue, message("order-1001", "msg-1", "order-1001"));
                template.send(queue, message("order-1001", "msg-2", "order-1001"));
              }));
      work = Duration.ofSeconds(1);
      rows.add(
          scenario(
              "delivered twice at once (one message id)",
              "order-1002",
              () -> {
                // the same publication twice, as a broker redelivers it: no header, the message
                // id is the key; the second delivery finds the first still running
                template.send(queue, message("order-1002", "msg-3", null));
                template.send(queue, message("order-1002", "msg-3", null));
              }));
      return rows;
    } finally {
      if (container != null) {
        container.stop();
      }
      connections.destroy();
    }
  }

  /** The listener: places the order named by the message's body; it knows nothing of duplicates. */
  private void placeOrder(Message message) {
    String orderId = new String(message.getBody(), StandardCharsets.UTF_8);
    sleep(work);
    ordersPlaced.computeIfAbsent(orderId, k -> new AtomicLong()).incrementAndGet();
  }

  private void countReplays(IdempotencyEvent event) {
    if (event.type() == IdempotencyEvent.Type.REPLAYED) {
      replays.incrementAndGet();
    }
  }

  /** Sends two messages of {@code orderId}, waits until both are answered, and counts. */
  private ScenarioRow scenario(String name, String orderId, Runnable publish) throws Exception {
    long deliveriesBefore = deliveries.get();
    long replaysBefore = replays.get();
    publish.run();
    await(() -> placed(orderId) + replays.get() - replaysBefore >= 2);
    return new ScenarioRow(
        name, deliveries.get() - deliveriesBefore, placed(orderId), replays.get() - replaysBefore);
  }

  private long placed(String orderId) {
    AtomicLong n = ordersPlaced.get(orderId);
    return n == null ? 0 : n.get();
  }

  private static Message message(String orderId, String messageId, String idempotencyKey) {
    MessageProperties properties = new MessageProperties();
    properties.setMessageId(messageId);
    if (idempotencyKey != null) {
      properties.setHeader(MessageKey.HEADER, idempotencyKey);
    }
    return new Message(orderId.getBytes(StandardCharsets.UTF_8), properties);
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the consumer did not answer every delivery in 30 s");
      }
      Thread.sleep(20);
    }
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
