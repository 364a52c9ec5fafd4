package dev.idempotent.messaging.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageInProgressException;
import dev.idempotent.messaging.MessageKey;
import java.nio.charset.Charset;
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
import org.springframework.amqp.rabbit.batch.SimpleBatchingStrategy;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;
import org.springframework.amqp.rabbit.retry.RejectAndDontRequeueRecoverer;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/** The advice on a real RabbitMQ broker ({@code IDEMPOTENT_RABBIT_URL}, else 127.0.0.1:5672). */
class IdempotentRabbitListenerAdviceTest {
  private static final String SCOPE = "orders.consumer";

  private CachingConnectionFactory connectionFactory;
  private RabbitAdmin admin;
  private RabbitTemplate template;
  private Idempotency idempotency;
  private String queue;
  private String deadLetters;
  private final List<AbstractMessageListenerContainer> containers = new ArrayList<>();

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
    containers.forEach(AbstractMessageListenerContainer::stop);
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
  void manualAcknowledgementsAreSentAfterTheRecordAndReplaysAreAcknowledged() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    List<Boolean> recordedBeforeAck = new CopyOnWriteArrayList<>();
    List<Boolean> recordedWhenAckReturned = new CopyOnWriteArrayList<>();
    ChannelAwareMessageListener listener =
        (m, channel) -> {
          runs.add(body(m));
          recordedBeforeAck.add(isCompleted("amqp-message-id:m-1"));
          channel.basicAck(m.getMessageProperties().getDeliveryTag(), false);
          recordedWhenAckReturned.add(isCompleted("amqp-message-id:m-1"));
        };
    manual(1, listener);
    send("first", "m-1", null);
    send("again", "m-1", null);
    send("other", "m-2", null);
    await(() -> runs.contains("other"));
    assertThat(runs).containsExactly("first", "other");
    assertThat(recordedBeforeAck.get(0)).isFalse();
    assertThat(recordedWhenAckReturned.get(0)).isTrue(); // recorded before the ack was sent
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

  // --- MANUAL acknowledgement: only an ack records the outcome (issue 39, item 7) ---

  private SimpleMessageListenerContainer manual(
      int prefetch, ChannelAwareMessageListener listener) {
    return manual(prefetch, listener, consumer(Duration.ofSeconds(1)));
  }

  private SimpleMessageListenerContainer manual(
      int prefetch, ChannelAwareMessageListener listener, MessageIdempotency orders) {
    SimpleMessageListenerContainer container = container(1, listener);
    container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
    container.setPrefetchCount(prefetch);
    container.setAdviceChain(
        IdempotentRabbitListenerAdvice.builder(orders)
            .acknowledgeMode(AcknowledgeMode.MANUAL)
            .build());
    container.afterPropertiesSet();
    container.start();
    return container;
  }

  @Test
  void manualNackWithRequeueIsNeverRecordedAndTheRedeliveryRunsAgain() throws Exception {
    List<Boolean> redelivered = new CopyOnWriteArrayList<>();
    manual(
        1,
        (m, channel) -> {
          long tag = m.getMessageProperties().getDeliveryTag();
          redelivered.add(m.getMessageProperties().isRedelivered());
          if (redelivered.size() == 1) {
            channel.basicNack(tag, false, true); // not now: the order is not placed
          } else {
            channel.basicAck(tag, false);
          }
        });
    send("order", "m-nack", null);
    await(() -> redelivered.size() == 2 && isCompleted("amqp-message-id:m-nack"));
    assertThat(redelivered).containsExactly(false, true); // the requeued copy ran the listener
    assertAllAcknowledged();
  }

  @Test
  void manualRejectWithoutRequeueReleasesTheKeyAndTheMessageIsDeadLettered() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    manual(
        1,
        (m, channel) -> {
          runs.incrementAndGet();
          channel.basicReject(m.getMessageProperties().getDeliveryTag(), false);
        });
    send("order", "m-reject", null);
    await(() -> queueDepth(deadLetters) == 1);
    assertThat(runs).hasValue(1);
    // not processed: a re-drive from the dead-letter queue runs it
    await(() -> idempotency.inspect("", SCOPE, "amqp-message-id:m-reject").isEmpty());
  }

  @Test
  void manualListenerReturningWithoutAckHoldsTheClaimUntilItsLaterAck() throws Exception {
    List<Object[]> unacked = new CopyOnWriteArrayList<>();
    manual(
        5,
        (m, channel) ->
            unacked.add(new Object[] {channel, m.getMessageProperties().getDeliveryTag()}));
    send("a", "m-late-1", null);
    send("b", "m-late-2", null);
    await(() -> unacked.size() == 2);
    assertThat(inProgress("amqp-message-id:m-late-1")).isTrue();
    assertThat(inProgress("amqp-message-id:m-late-2")).isTrue();
    // one ack for both, later, from another thread
    Object[] last = unacked.get(1);
    ((Channel) last[0]).basicAck((Long) last[1], true);
    await(() -> isCompleted("amqp-message-id:m-late-1") && isCompleted("amqp-message-id:m-late-2"));
    assertAllAcknowledged();
  }

  @Test
  void manualListenerThatNeverAcksLeavesNoRecordAndAClosedChannelReleasesTheKey() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    SimpleMessageListenerContainer container = manual(1, (m, channel) -> runs.incrementAndGet());
    send("order", "m-never", null);
    await(() -> runs.get() == 1 && inProgress("amqp-message-id:m-never"));
    container.stop(); // its channel closes: the broker requeues the message
    await(() -> idempotency.inspect("", SCOPE, "amqp-message-id:m-never").isEmpty());
    assertThat(queueDepth(queue)).isEqualTo(1);
  }

  // --- MANUAL + recordFailures: a replayed failure is rejected once (item 8) ---

  @Test
  void manualReplayOfARecordedFailureIsRejectedOnceAndTheChannelStaysOpen() throws Exception {
    AtomicInteger declinedRuns = new AtomicInteger();
    List<Boolean> redelivered = new CopyOnWriteArrayList<>();
    List<Object[]> held = new CopyOnWriteArrayList<>();
    MessageIdempotency orders =
        MessageIdempotency.builder(SCOPE)
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder().recordFailures(OrderDeclinedException.class).build())
            .inProgressWait(Duration.ofSeconds(1))
            .build();
    manual(
        10,
        (m, channel) -> {
          redelivered.add(m.getMessageProperties().isRedelivered());
          long tag = m.getMessageProperties().getDeliveryTag();
          if (body(m).equals("declined")) {
            declinedRuns.incrementAndGet();
            channel.basicReject(tag, false); // to the dead letters; the failure is recorded
            throw new OrderDeclinedException("card declined");
          }
          held.add(new Object[] {channel, tag}); // acknowledged later: in flight meanwhile
        },
        orders);
    send("hold", "m-hold-1", null);
    send("declined", "m-declined", null);
    await(() -> isCompleted("amqp-message-id:m-declined") && held.size() == 1);
    send("hold", "m-hold-2", null);
    send("declined", "m-declined", null); // a repeat: replayed failure, rejected once
    send("hold", "m-hold-3", null);
    await(() -> queueDepth(deadLetters) == 2 && held.size() == 3);
    for (Object[] h : held) {
      ((Channel) h[0]).basicAck((Long) h[1], false);
    }
    await(() -> isCompleted("amqp-message-id:m-hold-3"));
    assertThat(declinedRuns).hasValue(1);
    // the channel never closed: no in-flight message came back
    assertThat(redelivered).doesNotContain(true).hasSize(4);
    assertAllAcknowledged();
    assertThat(queueDepth(deadLetters))
        .isEqualTo(2); // the first delivery and its repeat, once each
  }

  // --- BLOCK: a final failure, dead-lettered once (item 6) ---

  @Test
  void aBlockedKeyIsDeadLetteredOnceNeverRedeliveredInALoop() throws Exception {
    AtomicInteger deliveries = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    MethodInterceptor counting =
        invocation -> {
          deliveries.incrementAndGet();
          return invocation.proceed();
        };
    MessageIdempotency orders =
        MessageIdempotency.builder(SCOPE)
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder().onAmbiguousFailure(OnAmbiguousFailure.BLOCK).build())
            .inProgressWait(Duration.ofSeconds(1))
            .build();
    start(
        1,
        m -> {
          runs.incrementAndGet();
          throw new IllegalStateException("timed out after the charge was sent");
        },
        counting,
        IdempotentRabbitListenerAdvice.builder(orders).build());
    send("charge", "m-blocked", null); // fails ambiguously: blocked, requeued once
    await(() -> queueDepth(deadLetters) == 1);
    sleep(500); // a hot loop would have redelivered it hundreds of times by now
    assertThat(runs).hasValue(1);
    assertThat(deliveries)
        .hasValue(2); // the first delivery, then its blocked repeat: dead-lettered
    assertThat(queueDepth(deadLetters)).isEqualTo(1);
  }

  // --- producer batching (item 10) ---

  private BatchingRabbitTemplate batching() {
    ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
    scheduler.initialize();
    BatchingRabbitTemplate batching =
        new BatchingRabbitTemplate(
            connectionFactory, new SimpleBatchingStrategy(5, 1 << 20, 30_000), scheduler);
    return batching;
  }

  @Test
  void aProducersBatchIsRefusedWholeWithAClearErrorWithoutAKeyFunction() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    start(1, m -> runs.incrementAndGet(), advice(Duration.ofSeconds(1)));
    BatchingRabbitTemplate batching = batching();
    for (int i = 1; i <= 5; i++) {
      batching.send("", queue, message("order-" + i, "m-batch-" + i, "order-" + i));
    }
    await(() -> queueDepth(deadLetters) == 1); // the whole batch, nothing lost
    assertThat(runs).hasValue(0);
    Message dead = template.receive(deadLetters, 1_000);
    assertThat(dead.getMessageProperties().getHeaders()).containsKey("amqp_batchSize");
  }

  @Test
  void aProducersBatchWithAKeyFunctionOverTheBodyRunsEachMessageOnce() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start(
        1,
        m -> runs.add(body(m)),
        IdempotentRabbitListenerAdvice.builder(consumer(Duration.ofSeconds(1)))
            .keyFunction(IdempotentRabbitListenerAdviceTest::body)
            .build());
    BatchingRabbitTemplate batching = batching();
    for (int i = 1; i <= 5; i++) {
      batching.send("", queue, message("order-" + i, "m-batch-" + i, "order-" + i));
    }
    await(() -> runs.size() == 5);
    assertThat(runs).containsExactly("order-1", "order-2", "order-3", "order-4", "order-5");
    assertAllAcknowledged();
    assertThat(queueDepth(deadLetters)).isZero();
  }

  // --- key bytes that are not UTF-8 (item 12) ---

  @Test
  void latin1KeyBytesThatDifferAreTwoKeys() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    start(1, m -> runs.add(body(m)), advice(Duration.ofSeconds(1)));
    Charset latin1 = Charset.forName("ISO-8859-1");
    for (String key : List.of("M\u00fcller-7", "M\u00e4ller-7")) {
      Message m = message(key, null, null);
      m.getMessageProperties().setHeader(MessageKey.HEADER, key.getBytes(latin1));
      template.send("", queue, m);
    }
    await(() -> runs.size() == 2);
    assertThat(runs).containsExactly("M\u00fcller-7", "M\u00e4ller-7");
    assertAllAcknowledged();
  }

  // --- DirectMessageListenerContainer ---

  @Test
  void theDirectContainerReplaysAndFollowsManualAcknowledgements() throws Exception {
    List<String> runs = new CopyOnWriteArrayList<>();
    DirectMessageListenerContainer container =
        new DirectMessageListenerContainer(connectionFactory);
    container.setQueueNames(queue);
    container.setPrefetchCount(1);
    container.setErrorHandler(new IdempotentRabbitErrorHandler());
    container.setAcknowledgeMode(AcknowledgeMode.MANUAL);
    container.setMessageListener(
        (ChannelAwareMessageListener)
            (m, channel) -> {
              runs.add(body(m));
              long tag = m.getMessageProperties().getDeliveryTag();
              if (runs.size() == 1) {
                channel.basicNack(tag, false, true);
              } else {
                channel.basicAck(tag, false);
              }
            });
    container.setAdviceChain(
        IdempotentRabbitListenerAdvice.builder(consumer(Duration.ofSeconds(1)))
            .acknowledgeMode(AcknowledgeMode.MANUAL)
            .build());
    containers.add(container);
    container.afterPropertiesSet();
    container.start();
    send("first", "m-d-1", null);
    await(() -> isCompleted("amqp-message-id:m-d-1"));
    send("again", "m-d-1", null);
    send("other", "m-d-2", null);
    await(() -> runs.contains("other"));
    assertThat(runs).containsExactly("first", "first", "other");
    assertAllAcknowledged();
  }

  @Test
  void aTransactedChannelIsRefusedWithAClearError() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    SimpleMessageListenerContainer container = container(1, m -> runs.incrementAndGet());
    container.setChannelTransacted(true);
    container.setAdviceChain(advice(Duration.ofSeconds(1)));
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    container.setApplicationEventPublisher(
        event -> {
          if (event
              instanceof
              org.springframework.amqp.rabbit.listener.ListenerContainerConsumerFailedEvent f) {
            failures.add(f.getThrowable());
          }
        });
    container.afterPropertiesSet();
    container.start();
    send("order", "m-tx", null);
    await(() -> !failures.isEmpty());
    assertThat(failures.get(0)).hasMessageContaining("does not support transacted channels");
    assertThat(runs).hasValue(0);
    container.stop();
    assertThat(queueDepth(queue)).isEqualTo(1); // nothing lost
  }

  @Test
  void aDuplicateInProgressIsRequeuedEvenWhenTheContainerRejectsFailuresWithoutRequeue()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    SimpleMessageListenerContainer container =
        container(
            2,
            m -> {
              runs.incrementAndGet();
              sleep(1_500);
            });
    container.setDefaultRequeueRejected(false);
    container.setAdviceChain(advice(Duration.ofMillis(300)));
    container.afterPropertiesSet();
    container.start();
    send("slow", "m-requeue", null);
    send("slow", "m-requeue", null);
    await(
        () ->
            runs.get() == 1 && isCompleted("amqp-message-id:m-requeue") && queueDepth(queue) == 0);
    sleep(500); // the duplicate's last wait ends in a replay
    assertThat(runs).hasValue(1);
    assertThat(queueDepth(deadLetters)).isZero(); // handed back, never a dead letter
    assertAllAcknowledged();
  }

  @Test
  void statefulRetriesClaimEachRedeliveryAfreshAndRunOnceWhenTheySucceed() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    SimpleMessageListenerContainer container =
        container(
            1,
            m -> {
              if (runs.incrementAndGet() < 3) {
                throw new IllegalStateException("database busy");
              }
            });
    container.setAdviceChain(
        advice(Duration.ofSeconds(1)),
        RetryInterceptorBuilder.stateful()
            .maxRetries(4)
            .backOffOptions(10, 1.0, 10)
            .recoverer(new RejectAndDontRequeueRecoverer())
            .build());
    container.afterPropertiesSet();
    container.start();
    send("order", "m-stateful", null);
    await(() -> isCompleted("amqp-message-id:m-stateful"));
    send("again", "m-stateful", null);
    sleep(300);
    assertThat(runs)
        .hasValue(3); // two failed attempts (each released), one success; the repeat replayed
    assertAllAcknowledged();
    assertThat(queueDepth(deadLetters)).isZero();
  }

  @Test
  void aTextKeyTheContainerDecodedLossilyIsRefusedNotMerged() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    start(1, m -> runs.incrementAndGet(), advice(Duration.ofSeconds(1)));
    send("lossy", null, "M\uFFFDller-7");
    await(() -> queueDepth(deadLetters) == 1);
    assertThat(runs).hasValue(0);
  }

  private boolean isCompleted(String key) {
    return idempotency
        .inspect("", SCOPE, key)
        .map(r -> r.status().name().equals("COMPLETED"))
        .orElse(false);
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
    containers.forEach(AbstractMessageListenerContainer::stop);
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
