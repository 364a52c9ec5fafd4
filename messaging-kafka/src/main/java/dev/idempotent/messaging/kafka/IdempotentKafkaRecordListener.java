package dev.idempotent.messaging.kafka;

import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.MessageOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.kafka.listener.AcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;

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
 *       MANUAL_IMMEDIATE}, the listener's {@code acknowledge()} is held until the outcome is
 *       recorded, and a replayed record is acknowledged by the wrapper;
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

  private final MessageIdempotency idempotency;
  private final Function<ConsumerRecord<?, ?>, String> keyFunction;

  /**
   * @param delegate the listener
   * @param idempotency the consumer's protocol: its scope (name the consumer), store and wait bound
   * @param keyFunction the key of a record in place of its header or offset, or {@code null}
   */
  public IdempotentKafkaRecordListener(
      MessageListener<K, V> delegate,
      MessageIdempotency idempotency,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    super(delegate);
    this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
    this.keyFunction = keyFunction;
  }

  /**
   * Wraps {@code container}'s listener and wraps its error handler in an {@link
   * IdempotentKafkaErrorHandler} (over a {@link
   * IdempotentKafkaErrorHandler#IdempotentKafkaErrorHandler() default one} when it has none). Call
   * it from the container factory's customizer, before the container starts.
   *
   * @throws IllegalStateException when the container's listener is a batch listener that takes the
   *     poll's {@code ConsumerRecords}
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void install(
      MessageListenerContainer container,
      MessageIdempotency idempotency,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    if (!(container
        instanceof
        org.springframework.kafka.listener.AbstractMessageListenerContainer<?, ?> target)) {
      throw new IllegalStateException(
          "cannot install the idempotent listener on a "
              + container.getClass().getName()
              + ": use a ConcurrentMessageListenerContainer or a KafkaMessageListenerContainer");
    }
    Object listener = target.getContainerProperties().getMessageListener();
    if (listener instanceof BatchMessageListener batch) {
      if (!(listener instanceof IdempotentKafkaBatchListener)) {
        target.setupMessageListener(
            new IdempotentKafkaBatchListener<>(batch, idempotency, keyFunction));
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
          new IdempotentKafkaRecordListener<>(messageListener, idempotency, keyFunction));
    }
    installErrorHandler(target);
  }

  private static void installErrorHandler(
      org.springframework.kafka.listener.AbstractMessageListenerContainer<?, ?> target) {
    if (!(target.getCommonErrorHandler() instanceof IdempotentKafkaErrorHandler)) {
      target.setCommonErrorHandler(
          target.getCommonErrorHandler() == null
              ? new IdempotentKafkaErrorHandler()
              : new IdempotentKafkaErrorHandler(target.getCommonErrorHandler()));
    }
  }

  @Override
  public void onMessage(ConsumerRecord<K, V> record, Acknowledgment ack, Consumer<?, ?> consumer) {
    MessageKey key = keyOf(record);
    HeldAcknowledgment held = ack == null ? null : new HeldAcknowledgment(ack);
    MessageOutcome outcome;
    try {
      outcome =
          idempotency.handle(
              key,
              () -> {
                switch (delegateType) {
                  case ACKNOWLEDGING_CONSUMER_AWARE -> delegate.onMessage(record, held, consumer);
                  case ACKNOWLEDGING -> delegate.onMessage(record, held);
                  case CONSUMER_AWARE -> delegate.onMessage(record, consumer);
                  case SIMPLE -> delegate.onMessage(record);
                }
              });
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      if (held != null) {
        held.send();
      }
    }
    switch (outcome) {
      case PROCESSED -> {}
      case REPLAYED -> {
        if (ack != null) {
          ack.acknowledge();
        }
      }
      case IN_PROGRESS -> throw idempotency.inProgress(key);
    }
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

  private MessageKey keyOf(ConsumerRecord<?, ?> record) {
    return keyOf(record, idempotency.scope(), keyFunction);
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
      // the offset's text is built only for a record without the header: it is on every record's
      // path
      return MessageKey.fromHeader(
          header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8), scope);
    }
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

  /** The listener's acknowledgment, held until the outcome is recorded. */
  private static final class HeldAcknowledgment implements Acknowledgment {
    private final Acknowledgment ack;
    private boolean acknowledged;

    HeldAcknowledgment(Acknowledgment ack) {
      this.ack = ack;
    }

    @Override
    public void acknowledge() {
      acknowledged = true;
    }

    @Override
    public void nack(Duration sleep) {
      throw refusedNack();
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
  }
}
