package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.messaging.MessageInProgressException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ExceptionClassifier;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * The container's error handler for listeners under {@link IdempotentKafkaRecordListener}: a record
 * handed back because another consumer still processes it ({@link MessageInProgressException} in
 * the cause chain) is sought back, so the next poll delivers it again, logged at DEBUG, never
 * counted as a failed attempt and never dead-lettered; the delivery waited the wait bound before it
 * was handed back, so this is never a hot loop. Every other failure goes to the delegate unchanged
 * (retries, dead-letter topic, as configured there); a blocked key ({@link
 * IdempotencyBlockedException}, {@code onAmbiguousFailure = BLOCK}) is a final failure: not
 * retried, it goes to the delegate's recoverer at once, on the record and the batch path alike.
 */
public class IdempotentKafkaErrorHandler implements CommonErrorHandler {
  private final CommonErrorHandler delegate;

  /**
   * Over a {@link DefaultErrorHandler} with its default back-off (9 retries, then logged and
   * skipped), which does not retry a record without a usable key.
   */
  public IdempotentKafkaErrorHandler() {
    this(defaultDelegate());
  }

  /**
   * Over {@code delegate}, which must seek after handling (as {@link DefaultErrorHandler} does).
   * When it classifies exceptions (as {@link DefaultErrorHandler} does), {@link
   * IdempotencyBlockedException} is added to its not-retryable ones: a blocked key is a final
   * failure, which goes to its recoverer (dead-letter topic) at once.
   */
  public IdempotentKafkaErrorHandler(CommonErrorHandler delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    if (delegate instanceof ExceptionClassifier classifier) {
      classifier.addNotRetryableExceptions(IdempotencyBlockedException.class);
    }
    if (!delegate.seeksAfterHandling()) {
      throw new IllegalArgumentException(
          "the delegate error handler "
              + delegate.getClass().getName()
              + " does not seek after handling: use one that does, such as DefaultErrorHandler");
    }
  }

  private static DefaultErrorHandler defaultDelegate() {
    DefaultErrorHandler handler = new DefaultErrorHandler();
    handler.addNotRetryableExceptions(
        IdempotencyKeyException.class, IdempotencyBlockedException.class);
    return handler;
  }

  /** The handler every failure but a record in progress goes to. */
  public CommonErrorHandler delegate() {
    return delegate;
  }

  /** Whether {@code t} is a record handed back because it is in progress elsewhere. */
  public static boolean inProgress(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof MessageInProgressException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void handleRemaining(
      Exception thrownException,
      List<ConsumerRecord<?, ?>> records,
      Consumer<?, ?> consumer,
      MessageListenerContainer container) {
    if (!inProgress(thrownException) || records.isEmpty()) {
      delegate.handleRemaining(thrownException, records, consumer, container);
      return;
    }
    Map<TopicPartition, Long> firstOffsets = new LinkedHashMap<>();
    for (ConsumerRecord<?, ?> record : records) {
      firstOffsets.putIfAbsent(
          new TopicPartition(record.topic(), record.partition()), record.offset());
    }
    firstOffsets.forEach(consumer::seek);
    // thrown so that the container neither commits the record nor goes on with the rest of the poll
    throw new KafkaException(
        "record handed back: another consumer still processes it",
        KafkaException.Level.DEBUG,
        thrownException);
  }

  @Override
  public boolean seeksAfterHandling() {
    return true;
  }

  @Override
  public boolean deliveryAttemptHeader() {
    return delegate.deliveryAttemptHeader();
  }

  @Override
  public void handleOtherException(
      Exception thrownException,
      Consumer<?, ?> consumer,
      MessageListenerContainer container,
      boolean batchListener) {
    delegate.handleOtherException(thrownException, consumer, container, batchListener);
  }

  @Override
  public void handleBatch(
      Exception thrownException,
      ConsumerRecords<?, ?> data,
      Consumer<?, ?> consumer,
      MessageListenerContainer container,
      Runnable invokeListener) {
    if (inProgress(thrownException)) {
      handBackBatch(thrownException, data, consumer);
    }
    delegate.handleBatch(thrownException, data, consumer, container, invokeListener);
  }

  @Override
  public <K, V> ConsumerRecords<K, V> handleBatchAndReturnRemaining(
      Exception thrownException,
      ConsumerRecords<?, ?> data,
      Consumer<?, ?> consumer,
      MessageListenerContainer container,
      Runnable invokeListener) {
    if (inProgress(thrownException)) {
      handBackBatch(thrownException, data, consumer);
    }
    return delegate.handleBatchAndReturnRemaining(
        thrownException, data, consumer, container, invokeListener);
  }

  /**
   * A batch stopped at a record in progress elsewhere ({@link IdempotentKafkaBatchListener}): each
   * partition is sought back to its first record from that one on (the records before it were
   * handled and are committed with a later offset), and nothing of the poll is committed now.
   */
  private static void handBackBatch(
      Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer) {
    int from = 0;
    for (Throwable c = thrownException; c != null; c = c.getCause()) {
      if (c instanceof BatchListenerFailedException failed && failed.getIndex() >= 0) {
        from = failed.getIndex();
        break;
      }
    }
    Map<TopicPartition, Long> firstOffsets = new LinkedHashMap<>();
    int index = 0;
    for (ConsumerRecord<?, ?> record : data) {
      if (index++ >= from) {
        firstOffsets.putIfAbsent(
            new TopicPartition(record.topic(), record.partition()), record.offset());
      }
    }
    firstOffsets.forEach(consumer::seek);
    // thrown so that the container neither commits the poll nor goes on with it
    throw new KafkaException(
        "records handed back: another consumer still processes one of them",
        KafkaException.Level.DEBUG,
        thrownException);
  }

  @Override
  public int deliveryAttempt(TopicPartitionOffset topicPartitionOffset) {
    return delegate.deliveryAttempt(topicPartitionOffset);
  }

  @Override
  public void clearThreadState() {
    delegate.clearThreadState();
  }

  @Override
  public boolean isAckAfterHandle() {
    return delegate.isAckAfterHandle();
  }

  @Override
  public void setAckAfterHandle(boolean ack) {
    delegate.setAckAfterHandle(ack);
  }

  @Override
  public void onPartitionsAssigned(
      Consumer<?, ?> consumer, Collection<TopicPartition> partitions, Runnable publishPause) {
    delegate.onPartitionsAssigned(consumer, partitions, publishPause);
  }
}
