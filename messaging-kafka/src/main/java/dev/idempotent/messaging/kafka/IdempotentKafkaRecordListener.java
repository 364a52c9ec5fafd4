package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.MessageOutcome;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.kafka.listener.AcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;

/**
 * Makes a Spring for Apache Kafka record listener idempotent: each record runs through {@link
 * MessageIdempotency#handle} under its key (the {@value MessageKey#HEADER} header, else {@code
 * topic/partition/offset}, unless a key function is given).
 *
 * <pre>{@code
 * factory.setContainerCustomizer(container -> IdempotentKafkaRecordListener.install(container,
 *     MessageIdempotency.builder("orders.consumer").build(), null));
 * }</pre>
 *
 * <ul>
 *   <li>processed or replayed: the listener returns, and the container commits the offset as its
 *       {@code AckMode} says, after the outcome is recorded. With {@code MANUAL} and {@code
 *       MANUAL_IMMEDIATE}, the outcome is recorded only when the listener acknowledges (its {@code
 *       acknowledge()} is held until then); a {@code nack} or a return without acknowledging
 *       releases the key; a replayed record is acknowledged by the wrapper;
 *   <li>in a container with a transaction manager ({@link #install} wraps it): the claim stays held
 *       until the transaction ends, and is completed when it commits, released when it rolls back;
 *   <li>a blocked key ({@code onAmbiguousFailure = BLOCK}): {@link
 *       dev.idempotent.IdempotencyBlockedException}, a final failure that the error handler sends
 *       to its recoverer without retries;
 *   <li>in progress in another consumer after the wait bound: {@link
 *       dev.idempotent.messaging.MessageInProgressException}, which {@link
 *       IdempotentKafkaErrorHandler} turns into a seek back to the record (logged at DEBUG, never
 *       retried to exhaustion, never dead-lettered);
 *   <li>the listener failed: the claim is settled as the settings say (released by default) and the
 *       exception goes on unchanged to the container's error handler (retries, dead-letter topic).
 * </ul>
 *
 * For a batch listener, {@link #install} installs an {@link IdempotentKafkaBatchListener}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class IdempotentKafkaRecordListener<K, V>
    extends AbstractDelegatingMessageListenerAdapter<MessageListener<K, V>>
    implements AcknowledgingConsumerAwareMessageListener<K, V> {
  /** The kind of broker identity a record's key is taken from: {@code topic/partition/offset}. */
  public static final String TOPIC_PARTITION_OFFSET = "kafka";

  private final TopicScopes scopes;
  private final Function<ConsumerRecord<?, ?>, String> keyFunction;
  private final boolean manualAck;

  /**
   * A listener whose records are filed under one scope, whatever their topic, in a container whose
   * {@code AckMode} is not {@code MANUAL} or {@code MANUAL_IMMEDIATE}.
   *
   * @param delegate the listener
   * @param idempotency the consumer's protocol: its scope (name the consumer), store and wait bound
   * @param keyFunction the key of a record in place of its header or offset, or {@code null}
   */
  public IdempotentKafkaRecordListener(
      MessageListener<K, V> delegate,
      MessageIdempotency idempotency,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    this(delegate, sameForEveryTopic(idempotency), keyFunction, null);
  }

  /**
   * @param delegate the listener
   * @param idempotencyOfTopic the consumer's protocol for the records of a topic (see {@link
   *     #perTopic})
   * @param keyFunction the key of a record in place of its header or offset, or {@code null}
   * @param ackMode the container's acknowledgement mode; with {@code MANUAL} and {@code
   *     MANUAL_IMMEDIATE} a record's outcome is recorded only when the listener acknowledges it
   */
  public IdempotentKafkaRecordListener(
      MessageListener<K, V> delegate,
      Function<String, MessageIdempotency> idempotencyOfTopic,
      Function<ConsumerRecord<?, ?>, String> keyFunction,
      ContainerProperties.AckMode ackMode) {
    super(delegate);
    this.scopes = new TopicScopes(idempotencyOfTopic);
    this.keyFunction = keyFunction;
    this.manualAck = isManual(ackMode);
  }

  /**
   * The consumer's protocol with a scope per topic: the records of topic {@code t} are filed under
   * {@code <base scope>/t}, with {@code base}'s instance, settings and wait bound. The same {@value
   * MessageKey#HEADER} on two topics is then two messages; one consumer group reading one topic
   * shares one key space. The Spring Boot starter files every container's records this way, under
   * its group id.
   */
  public static Function<String, MessageIdempotency> perTopic(MessageIdempotency base) {
    Objects.requireNonNull(base, "base");
    return topic ->
        MessageIdempotency.builder(base.scope() + "/" + topic)
            .idempotency(base.idempotency())
            .settings(base.settings())
            .inProgressWait(base.inProgressWait())
            .build();
  }

  private static Function<String, MessageIdempotency> sameForEveryTopic(
      MessageIdempotency idempotency) {
    Objects.requireNonNull(idempotency, "idempotency");
    return topic -> idempotency;
  }

  /** The scope the records of {@code topic} are filed under. */
  public String scopeOf(String topic) {
    return scopes.of(topic).idempotency().scope();
  }

  static boolean isManual(ContainerProperties.AckMode ackMode) {
    return ackMode == ContainerProperties.AckMode.MANUAL
        || ackMode == ContainerProperties.AckMode.MANUAL_IMMEDIATE;
  }

  /**
   * Wraps {@code container}'s listener and wraps its error handler in an {@link
   * IdempotentKafkaErrorHandler} (over a {@link
   * IdempotentKafkaErrorHandler#IdempotentKafkaErrorHandler() default one} when it has none); every
   * record of the container is filed under {@code idempotency}'s scope, whatever its topic (see
   * {@link #perTopic} for a scope per topic). Call it from the container factory's customizer,
   * before the container starts.
   *
   * @throws IllegalStateException when the container's listener is a batch listener that takes the
   *     poll's {@code ConsumerRecords}, or a mode the wrappers cannot keep the promise in (see the
   *     mode table in docs/messaging.md)
   */
  public static void install(
      MessageListenerContainer container,
      MessageIdempotency idempotency,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    install(container, sameForEveryTopic(idempotency), keyFunction);
  }

  /**
   * {@link #install(MessageListenerContainer, MessageIdempotency, Function)} with the consumer's
   * protocol chosen per topic, for example {@link #perTopic}.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void install(
      MessageListenerContainer container,
      Function<String, MessageIdempotency> idempotencyOfTopic,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    Objects.requireNonNull(idempotencyOfTopic, "idempotencyOfTopic");
    if (!(container
        instanceof
        org.springframework.kafka.listener.AbstractMessageListenerContainer<?, ?> target)) {
      throw new IllegalStateException(
          "cannot install the idempotent listener on a "
              + container.getClass().getName()
              + ": use a ConcurrentMessageListenerContainer or a KafkaMessageListenerContainer");
    }
    ContainerProperties properties = target.getContainerProperties();
    if (properties.isAsyncAcks()) {
      throw new IllegalStateException(
          "the container "
              + container.getListenerId()
              + " acknowledges asynchronously (asyncAcks): an idempotent listener records a"
              + " record's outcome when it acknowledges within its call, so an acknowledgement"
              + " sent later would commit a record whose outcome is not recorded; turn asyncAcks"
              + " off");
    }
    Object listener = properties.getMessageListener();
    boolean transactional =
        properties.getTransactionManager() != null
            || properties.getKafkaAwareTransactionManager() != null;
    if (listener instanceof BatchMessageListener batch) {
      if (transactional) {
        throw IdempotentKafkaBatchListener.refusedTransaction(container.getListenerId());
      }
      if (!(listener instanceof IdempotentKafkaBatchListener)) {
        target.setupMessageListener(
            new IdempotentKafkaBatchListener<>(
                batch, idempotencyOfTopic, keyFunction, properties.getAckMode()));
      }
      installErrorHandler(target);
      return;
    }
    if (!(listener instanceof MessageListener messageListener)) {
      throw new IllegalStateException(
          "the container "
              + container.getListenerId()
              + " has no record listener yet: install the idempotent listener after it is set");
    }
    if (!(listener instanceof IdempotentKafkaRecordListener)) {
      target.setupMessageListener(
          new IdempotentKafkaRecordListener<>(
              messageListener, idempotencyOfTopic, keyFunction, properties.getAckMode()));
    }
    // a record's outcome is settled when the transaction it ran in ends
    if (properties.getKafkaAwareTransactionManager() != null) {
      properties.setKafkaAwareTransactionManager(
          (KafkaAwareTransactionManager<?, ?>)
              SettlingTransactionManager.over(properties.getKafkaAwareTransactionManager()));
    }
    if (properties.getTransactionManager() != null) {
      properties.setTransactionManager(
          SettlingTransactionManager.over(properties.getTransactionManager()));
    }
    installErrorHandler(target);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void installErrorHandler(
      org.springframework.kafka.listener.AbstractMessageListenerContainer<?, ?> target) {
    if (!(target.getCommonErrorHandler() instanceof IdempotentKafkaErrorHandler)) {
      target.setCommonErrorHandler(
          target.getCommonErrorHandler() == null
              ? new IdempotentKafkaErrorHandler()
              : new IdempotentKafkaErrorHandler(target.getCommonErrorHandler()));
    }
    AfterRollbackProcessor rollback = target.getAfterRollbackProcessor();
    if (!(rollback instanceof IdempotentKafkaAfterRollbackProcessor)) {
      target.setAfterRollbackProcessor(new IdempotentKafkaAfterRollbackProcessor<>(rollback));
    }
  }

  @Override
  public void onMessage(ConsumerRecord<K, V> record, Acknowledgment ack, Consumer<?, ?> consumer) {
    TopicScopes.Scope scope = scopes.of(record.topic());
    MessageKey key = keyOf(record, scope.idempotency().scope(), keyFunction);
    boolean transactional = SettlingTransactionManager.inTransaction();
    if (transactional || (manualAck && ack != null)) {
      onClaimedMessage(record, ack, consumer, scope, key, transactional);
      return;
    }
    MessageIdempotency idempotency = scope.idempotency();
    HeldAcknowledgment held =
        ack == null ? null : new HeldAcknowledgment(ack, false, idempotency.scope());
    MessageOutcome outcome;
    try {
      outcome = idempotency.handle(key, () -> invoke(record, held, consumer));
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    switch (outcome) {
      case PROCESSED -> {
        if (held != null) {
          held.send();
        }
      }
      case REPLAYED -> {
        if (ack != null) {
          ack.acknowledge();
        }
      }
      case IN_PROGRESS -> throw idempotency.inProgress(key);
    }
  }

  private void invoke(ConsumerRecord<K, V> record, Acknowledgment ack, Consumer<?, ?> consumer) {
    switch (delegateType) {
      case ACKNOWLEDGING_CONSUMER_AWARE -> delegate.onMessage(record, ack, consumer);
      case ACKNOWLEDGING -> delegate.onMessage(record, ack);
      case CONSUMER_AWARE -> delegate.onMessage(record, consumer);
      case SIMPLE -> delegate.onMessage(record);
    }
  }

  /**
   * A record whose outcome is recorded later than the listener's return: when the listener
   * acknowledges it ({@code MANUAL} acknowledgement), and only once the container's transaction
   * commits (a transaction on the container). The claim stays held, and renewed, until then.
   */
  private void onClaimedMessage(
      ConsumerRecord<K, V> record,
      Acknowledgment ack,
      Consumer<?, ?> consumer,
      TopicScopes.Scope scope,
      MessageKey key,
      boolean transactional) {
    MessageIdempotency idempotency = scope.idempotency();
    IdempotencyClaim claim;
    try {
      claim = join(idempotency.idempotency().claim(scope.policy(), key.value()));
    } catch (IdempotencyInProgressException e) {
      throw idempotency.inProgress(key); // a blocked key is not in progress: it goes on, final
    }
    if (!claim.runs()) {
      if (claim.replaysFailure()) {
        throw rethrown(claim.replayedFailure());
      }
      if (ack != null) {
        ack.acknowledge(); // a replay: its offset is committed (with the transaction, if any)
      }
      return;
    }
    HeldAcknowledgment held =
        ack == null ? null : new HeldAcknowledgment(ack, manualAck, idempotency.scope());
    try {
      invoke(record, held, consumer);
    } catch (RuntimeException | Error e) {
      // a @KafkaListener's adapter wraps the method's exception: a recorded cause is what is kept
      Throwable settleWith = recordedCause(e, idempotency);
      Throwable rethrown = join(claim.fail(settleWith));
      throw rethrown(rethrown == settleWith ? e : rethrown);
    }
    if (manualAck && held != null && !held.acknowledged) {
      // a nack, or a return without acknowledge(): no outcome, as without the library
      join(claim.release());
      held.forwardNack();
      return;
    }
    if (transactional) {
      SettlingTransactionManager.settleWithTransaction(claim, idempotency.scope());
    } else {
      join(claim.complete(null));
    }
    if (held != null) {
      held.send(); // with a transaction, its offset is committed with the transaction
    }
  }

  /** The first of {@code e} and its causes that the settings record, else {@code e}. */
  private static Throwable recordedCause(Throwable e, MessageIdempotency idempotency) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < 16; depth++) {
      if (idempotency.settings().records(t)) {
        return t;
      }
      t = t.getCause() == t ? null : t.getCause();
    }
    return e;
  }

  private static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      throw rethrown(e.getCause() != null ? e.getCause() : e);
    }
  }

  private static RuntimeException rethrown(Throwable t) {
    if (t instanceof RuntimeException e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t.getMessage(), t);
  }

  @Override
  public void onMessage(ConsumerRecord<K, V> data) {
    onMessage(data, null, null);
  }

  @Override
  public void onMessage(ConsumerRecord<K, V> data, Acknowledgment acknowledgment) {
    onMessage(data, acknowledgment, null);
  }

  @Override
  public void onMessage(ConsumerRecord<K, V> data, Consumer<?, ?> consumer) {
    onMessage(data, null, consumer);
  }

  /** A record's key: the key function's, else its header's, else its topic/partition/offset. */
  static MessageKey keyOf(
      ConsumerRecord<?, ?> record,
      String scope,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    if (keyFunction != null) {
      return MessageKey.of(keyFunction.apply(record), scope);
    }
    Header header = record.headers().lastHeader(MessageKey.HEADER);
    if (header != null) {
      // the bytes as sent: bytes that are not UTF-8 are filed exactly, never decoded lossily
      return MessageKey.fromHeader(header.value() == null ? new byte[0] : header.value(), scope);
    }
    // the offset's text is built only for a record without the header: it is on every record's path
    return MessageKey.resolve(
        null,
        TOPIC_PARTITION_OFFSET,
        record.topic() + "/" + record.partition() + "/" + record.offset(),
        scope);
  }

  /** Why a listener under the idempotent wrappers must not nack. */
  static IllegalStateException refusedNack() {
    return new IllegalStateException(
        "an idempotent listener must not nack: it would return normally and its outcome would be"
            + " recorded, so the redelivery would be replayed, not run; throw an exception"
            + " instead (the claim is released and the error handler seeks back or retries)");
  }

  /**
   * The listener's acknowledgment, held until the outcome is recorded; with {@code MANUAL}
   * acknowledgement a {@code nack} is held too and sent after the key is released.
   */
  private static final class HeldAcknowledgment implements Acknowledgment {
    private final Acknowledgment ack;
    private final boolean manualAck;
    private final String scope;
    private boolean acknowledged;
    private Duration nackSleep;

    HeldAcknowledgment(Acknowledgment ack, boolean manualAck, String scope) {
      this.ack = ack;
      this.manualAck = manualAck;
      this.scope = scope;
    }

    @Override
    public void acknowledge() {
      acknowledged = true;
    }

    @Override
    public void nack(Duration sleep) {
      if (!manualAck) {
        throw refusedNack();
      }
      if (acknowledged) {
        throw new IllegalStateException(
            "the record of scope " + scope + " was acknowledged already: it cannot be nacked");
      }
      nackSleep = sleep;
    }

    @Override
    public void nack(int index, Duration sleep) {
      throw refusedNack();
    }

    void send() {
      if (acknowledged) {
        ack.acknowledge();
      }
    }

    void forwardNack() {
      if (nackSleep != null) {
        ack.nack(nackSleep);
      }
    }
  }
}
