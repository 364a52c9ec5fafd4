package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyBlockedException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ExceptionClassifier;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The container's after-rollback processor for record listeners under {@link
 * IdempotentKafkaRecordListener} in a container with a transaction manager: a record handed back
 * because another consumer still processes it ({@link IdempotentKafkaErrorHandler#inProgress}) is
 * sought back without counting a failed attempt (so it is never recovered, that is skipped, while
 * its key is held); every other rollback goes to the delegate unchanged. A blocked key is one of
 * the delegate's not-retryable exceptions (when it classifies exceptions, as {@code
 * DefaultAfterRollbackProcessor} does): it is recovered at once.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class IdempotentKafkaAfterRollbackProcessor<K, V>
    implements AfterRollbackProcessor<K, V> {
  private final AfterRollbackProcessor<K, V> delegate;

  /** Over {@code delegate}, the container's own after-rollback processor. */
  public IdempotentKafkaAfterRollbackProcessor(AfterRollbackProcessor<K, V> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    if (delegate instanceof ExceptionClassifier classifier) {
      classifier.addNotRetryableExceptions(IdempotencyBlockedException.class);
    }
  }

  /** The processor every rollback but a record in progress goes to. */
  public AfterRollbackProcessor<K, V> delegate() {
    return delegate;
  }

  @Override
  public void process(
      List<ConsumerRecord<K, V>> records,
      Consumer<K, V> consumer,
      MessageListenerContainer container,
      Exception exception,
      boolean recoverable,
      ContainerProperties.EOSMode eosMode) {
    if (!IdempotentKafkaErrorHandler.inProgress(exception) || records.isEmpty()) {
      delegate.process(records, consumer, container, exception, recoverable, eosMode);
      return;
    }
    Map<TopicPartition, Long> firstOffsets = new LinkedHashMap<>();
    for (ConsumerRecord<K, V> record : records) {
      firstOffsets.putIfAbsent(
          new TopicPartition(record.topic(), record.partition()), record.offset());
    }
    firstOffsets.forEach(consumer::seek);
  }

  @Override
  public void clearThreadState() {
    delegate.clearThreadState();
  }

  @Override
  public boolean isProcessInTransaction() {
    return delegate.isProcessInTransaction();
  }
}
