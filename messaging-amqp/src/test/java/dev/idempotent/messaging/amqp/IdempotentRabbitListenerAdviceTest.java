package dev.idempotent.messaging.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageInProgressException;
import dev.idempotent.messaging.MessageKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;
import org.springframework.amqp.rabbit.retry.RejectAndDontRequeueRecoverer;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;

/** The advice on a real RabbitMQ broker ({@code IDEMPOTENT_RABBIT_URL}, else 127.0.0.1:5672). */
class IdempotentRabbitListenerAdviceTest {
  private static final String SCOPE = "orders.consumer";

  private CachingConnectionFactory connectionFactory;
  private RabbitAdmin admin;
  private RabbitTemplate template;
  private Idempotency idempotency;
  private String queue;
  private String deadLetters;
  private final List<SimpleMessageListenerContainer> containers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    connectionFactory = RabbitTestEnvironment.connectionFactory();
    admin = new RabbitAdmin(connectionFactory);
    template = new RabbitTemplate(connectionFactory);
    idempotency =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(CaffeineIdempotencyStore.builder().build())
                .build());
    queue = "idempotent.test." + UUID.randomUUID();
    deadLetters = queue + ".dlq";
    admin.declareQueue(new Queue(deadLetters, false, false, false));
    admin.declareQueue(
        new Queue(
            queue,
            false,
            false,
            false,
            Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", deadLetters)));
  }

  @AfterEach
  void tearDown() {
    containers.forEach(SimpleMessageListenerContainer::stop);
    if (admin != null) {
      admin.deleteQueue(queue);
      admin.deleteQueue(deadLetters);
    }
    if (connectionFactory != null) {
      connectionFactory.destroy();
    }
  }

  @Test
  void aRedeliveredMessageIdIsReplayedNotRun() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start(1, m -> runs.add(body(m)), advice(Duration.ofSeconds(2)));
    send("first", "m-1", null);
    send("again", "m-1", null);
    send("other", "m-2", null);
    await(() -> runs.contains("other"));
    assertThat(runs).containsExactly("first", "other");
    assertAllAcknowledged();
    assertThat(idempotency.inspect("", SCOPE, "amqp-message-id:m-1")).isPresent();
  }

  @Test
  void aPerQueueAdviceFilesEachQueuesMessagesUnderItsOwnScope() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start(
        1,
        m -> runs.add(body(m)),
        IdempotentRabbitListenerAdvice.perQueue(
                q ->
                    MessageIdempotency.builder("rabbit:" + q)
                        .idempotency(idempotency)
                        .inProgressWait(Duration.ofSeconds(1))
                        .build())
            .build());
    send("first", "m-1", null);
    send("again", "m-1", null);
    send("other", "m-2", null);
    await(() -> runs.contains("other"));
    assertThat(runs).containsExactly("first", "other");
    assertThat(idempotency.inspect("", "rabbit:" + queue, "amqp-message-id:m-1")).isPresent();
  }

  @Test
  void theProducersKeyHeaderCatchesAResendWithANewMessageId() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start(1, m -> runs.add(body(m)), advice(Duration.ofSeconds(2)));
    send("first", "m-1", "order-1");
    send("resend", "m-2", "order-1");
    send("next", "m-3", "order-2");
    await(() -> runs.contains("next"));
    assertThat(runs).containsExactly("first", "next");
    assertAllAcknowledged();
  }

  @Test
  void aRedeliveryWhileTheFirstStillRunsIsHandedBackAndRunsExactlyOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger deliveries = new AtomicInteger();
    MethodInterceptor counting =
        invocation -> {
          if (invocation.getArguments()[1] instanceof Message) {
            deliveries.incrementAndGet();
          }
          return invocation.proceed();
        };
    start(
        2,
        m -> {
          runs.incrementAndGet();
          sleep(2_000);
        },
        counting,
        advice(Duration.ofMillis(300)));
    send("slow", "m-1", null);
    send("slow", "m-1", null);
    await(() -> deliveries.get() >= 3); // the duplicate has been handed back at least once
    await(() -> queueDepth(queue) == 0 && runs.get() == 1 && !inProgress("amqp-message-id:m-1"));
    sleep(500); // the duplicate's last wait ends in a replay
    assertThat(runs).hasValue(1);
    // every hand-back waits the bound first: about 2 s / 300 ms of them, never a hot loop
    assertThat(deliveries.get()).isBetween(3, 12);
    assertAllAcknowledged();
    assertThat(queueDepth(deadLetters)).isZero();
  }

  @Test
  void anAlwaysFailingMessageReachesTheDeadLetterQueueWithItsClaimReleasedEachTime()
      throws Exception {
    List<Boolean> heldDuringAttempt = new CopyOnWriteArrayList<>();
    SimpleMessageListenerContainer container =
        container(
            1,
            m -> {
              heldDuringAttempt.add(inProgress("amqp-message-id:m-bad"));
              throw new IllegalStateException("cannot book this order");
            });
    // spotless:off
    // docs/messaging.md: rabbit container (begin)
    MessageIdempotency orders = MessageIdempotency.builder("orders.consumer")
        .idempotency(idempotency)                 // default: Idempotency.global()
        .inProgressWait(Duration.ofSeconds(1))    // then a duplicate in progress is requeued
        .build();
    container.setAdviceChain(
        IdempotentRabbitListenerAdvice.builder(orders).build(),   // first: the retries run inside one claim
        RetryInterceptorBuilder.stateless().maxRetries(2).backOffOptions(10, 1.0, 10)
            .recoverer(new RejectAndDontRequeueRecoverer()).build());
    container.setErrorHandler(new IdempotentRabbitErrorHandler());
    // docs/messaging.md: rabbit container (end)
    // spotless:on
    container.afterPropertiesSet();
    container.start();
    send("bad", "m-bad", null);
    await(() -> queueDepth(deadLetters) == 1);
    assertThat(heldDuringAttempt).containsExactly(true, true, true);
    assertThat(idempotency.inspect("", SCOPE, "amqp-message-id:m-bad")).isEmpty();
    Message dead = template.receive(deadLetters, 1_000);
    assertThat(dead).isNotNull();
    assertThat(dead.getMessageProperties().getMessageId()).isEqualTo("m-bad");
  }

  /** A business refusal the consumer records, so that a redelivery gets it without running. */
  public static final class OrderDeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OrderDeclinedException(String message) {
      super(message);
    }
  }

  @Test
  void aRecordedFailureIsRecordedThroughTheContainersWrappersAndARedeliveryIsDeadLetteredUnrun()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    SimpleMessageListenerContainer container =
        container(
            1,
            m -> {
              runs.incrementAndGet();
              throw new OrderDeclinedException("card declined");
            });
    MessageIdempotency orders =
        MessageIdempotency.builder(SCOPE)
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder().recordFailures(OrderDeclinedException.class).build())
            .inProgressWait(Duration.ofSeconds(1))
            .build();
    container.setAdviceChain(
        IdempotentRabbitListenerAdvice.builder(orders).build(),
        RetryInterceptorBuilder.stateless()
            .maxRetries(2)
            .backOffOptions(10, 1.0, 10)
            .recoverer(new RejectAndDontRequeueRecoverer())
            .build());
    container.afterPropertiesSet();
    container.start();
    send("declined", "m-declined", null);
    await(() -> queueDepth(deadLetters) == 1);
    assertThat(runs).hasValue(3); // the retries ran inside the one claim
    assertThat(idempotency.inspect("", SCOPE, "amqp-message-id:m-declined"))
        .hasValueSatisfying(r -> assertThat(r.status().name()).isEqualTo("COMPLETED"));
    send("declined", "m-declined", null); // a redelivery: replayed, rejected without requeue
    await(() -> queueDepth(deadLetters) == 2);
    assertThat(runs).hasValue(3);
    assertAllAcknowledged();
  }

  @Test
  void aMessageWithoutIdentityIsRejectedWithAClearErrorAndNeverRun() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    start(1, m -> runs.incrementAndGet(), advice(Duration.ofSeconds(1)));
    send("anonymous", null, null);
    await(() -> queueDepth(deadLetters) == 1);
    assertThat(runs).hasValue(0);
  }

  @Test
  void manualAcknowledgementsAreHeldUntilTheRecordAndReplaysAreAcknowledged() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    List<Boolean> recordedWhenAckSent = new CopyOnWriteArrayList<>();
    ChannelAwareMessageListener listener =
        (m, channel) -> {
          runs.add(body(m));
          channel.basicAck(m.getMessageProperties().getDeliveryTag(), false);
        };
    SimpleMessageListenerContainer container = container(1, listener);
    container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
    MethodInterceptor observing =
        invocation -> {
          Object result = invocation.proceed();
          recordedWhenAckSent.add(
              idempotency
                  .inspect("", SCOPE, "amqp-message-id:m-1")
                  .map(r -> r.status().name())
                  .orElse("")
                  .equals("COMPLETED"));
          return result;
        };
    container.setAdviceChain(
        IdempotentRabbitListenerAdvice.builder(consumer(Duration.ofSeconds(2)))
            .acknowledgeMode(AcknowledgeMode.MANUAL)
            .build(),
        observing);
    container.afterPropertiesSet();
    container.start();
    send("first", "m-1", null);
    send("again", "m-1", null);
    send("other", "m-2", null);
    await(() -> runs.contains("other"));
    assertThat(runs).containsExactly("first", "other");
    // inside the advice, right after the listener returned, m-1 was not yet recorded: its ack was
    // held
    assertThat(recordedWhenAckSent.get(0)).isFalse();
    assertAllAcknowledged();
  }

  @Test
  void theErrorHandlerNeverRejectsAMessageInProgress() {
    Message message = new Message(new byte[0], new MessageProperties());
    ListenerExecutionFailedException handedBack =
        new ListenerExecutionFailedException(
            "handed back",
            new MessageInProgressException(SCOPE, "key#x", Duration.ofSeconds(1)),
            message);
    new IdempotentRabbitErrorHandler().handleError(handedBack);
    new IdempotentRabbitErrorHandler(t -> true).handleError(handedBack);
    assertThat(IdempotentRabbitErrorHandler.inProgress(handedBack)).isTrue();
    assertThatThrownBy(
            () ->
                new IdempotentRabbitErrorHandler(t -> true)
                    .handleError(
                        new ListenerExecutionFailedException(
                            "failed", new IllegalStateException("x"), message)))
        .hasMessageContaining("fatal");
  }

  @Test
  void noneAcknowledgeModeIsRefused() {
    assertThatThrownBy(
            () ->
                IdempotentRabbitListenerAdvice.builder(consumer(Duration.ofSeconds(1)))
                    .acknowledgeMode(AcknowledgeMode.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use AUTO or MANUAL");
  }

  @Test
  void theKeyFunctionOverridesTheMessagesIdentity() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start(
        1,
        m -> runs.add(body(m)),
        IdempotentRabbitListenerAdvice.builder(consumer(Duration.ofSeconds(1)))
            .keyFunction(m -> (String) m.getMessageProperties().getHeader("order-id"))
            .build());
    Message a = message("a", "m-1", null);
    a.getMessageProperties().setHeader("order-id", "o-1");
    Message b = message("b", "m-2", null);
    b.getMessageProperties().setHeader("order-id", "o-1");
    template.send("", queue, a);
    template.send("", queue, b);
    send("c", "m-3", null); // no order-id: the key function returns null, a clear error
    await(() -> queueDepth(deadLetters) == 1);
    assertThat(runs).containsExactly("a");
    assertThat(idempotency.inspect("", SCOPE, "key:o-1")).isPresent();
    assertThatThrownBy(() -> MessageKey.of(null, SCOPE))
        .isInstanceOf(IdempotencyKeyException.class);
  }

  private MessageIdempotency consumer(Duration wait) {
    return MessageIdempotency.builder(SCOPE).idempotency(idempotency).inProgressWait(wait).build();
  }

  private IdempotentRabbitListenerAdvice advice(Duration wait) {
    return IdempotentRabbitListenerAdvice.builder(consumer(wait)).build();
  }

  private SimpleMessageListenerContainer container(int consumers, MessageListener listener) {
    SimpleMessageListenerContainer container =
        new SimpleMessageListenerContainer(connectionFactory);
    container.setQueueNames(queue);
    container.setMessageListener(listener);
    container.setErrorHandler(new IdempotentRabbitErrorHandler());
    container.setConcurrentConsumers(consumers);
    container.setPrefetchCount(1);
    container.setDefaultRequeueRejected(true);
    containers.add(container);
    return container;
  }

  private void start(int consumers, MessageListener listener, Advice... advice) {
    SimpleMessageListenerContainer container = container(consumers, listener);
    container.setAdviceChain(advice);
    container.afterPropertiesSet();
    container.start();
  }

  private Message message(String body, String messageId, String key) {
    MessageProperties properties = new MessageProperties();
    if (messageId != null) {
      properties.setMessageId(messageId);
    }
    if (key != null) {
      properties.setHeader(MessageKey.HEADER, key);
    }
    return new Message(body.getBytes(StandardCharsets.UTF_8), properties);
  }

  private void send(String body, String messageId, String key) {
    template.send("", queue, message(body, messageId, key));
  }

  private static String body(Message m) {
    return new String(m.getBody(), StandardCharsets.UTF_8);
  }

  private boolean inProgress(String key) {
    return idempotency
        .inspect("", SCOPE, key)
        .map(r -> r.status().name().equals("IN_PROGRESS"))
        .orElse(false);
  }

  private long queueDepth(String name) {
    var info = admin.getQueueInfo(name);
    return info == null ? -1 : info.getMessageCount();
  }

  /** Stops the containers (unacknowledged messages go back) and checks that none went back. */
  private void assertAllAcknowledged() {
    containers.forEach(SimpleMessageListenerContainer::stop);
    assertThat(queueDepth(queue)).isZero();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 20 s");
      }
      Thread.sleep(20);
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
