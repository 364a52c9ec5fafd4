package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.messaging.MessageBatchOutcome;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.listener.BatchAcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;

/**
 * Makes a Spring for Apache Kafka batch listener idempotent, record by record ({@link
 * MessageIdempotency#handleBatch}): every record of the poll is claimed under its key (as {@link
 * IdempotentKafkaRecordListener} takes it), and the listener gets, in one call, the records whose
 * keys were claimed; records already processed (and a second record of one key in the poll) are
 * left out. {@link IdempotentKafkaRecordListener#install} installs it for a batch listener.
 *
 * <ul>
 *   <li>The listener returned: the records' outcomes are recorded before the container commits the
 *       poll's offsets. With {@code MANUAL} acknowledgement, the listener's {@code acknowledge()}
 *       is held until then; when every record was a replay, the wrapper acknowledges.
 *   <li>A record in progress in another consumer (after the wait bound) stops the batch there: the
 *       records before it are handled, and a {@link BatchListenerFailedException} at its index,
 *       caused by a {@link dev.idempotent.messaging.MessageInProgressException}, makes {@link
 *       IdempotentKafkaErrorHandler} seek back to it (never counted as a failed attempt, never
 *       dead-lettered). A held acknowledgement is not sent: it would commit the whole poll.
 *   <li>A record whose recorded failure replays stops the batch there too, with a {@link
 *       BatchListenerFailedException} at its index caused by the recorded failure, which goes to
 *       the container's error handler (its retries, then its recoverer) as a listener failure does.
 *   <li>The listener threw a {@link BatchListenerFailedException}: the records before the one it
 *       names are recorded, that one is settled as the settings say, the ones after it are
 *       released; the exception is rethrown with the record's index in the poll (the listener saw
 *       fewer records). Any other exception fails the whole call: every record run is settled with
 *       it.
 *   <li>A record without a usable key: the records before it are handled, then a {@link
 *       BatchListenerFailedException} at its index caused by the {@link IdempotencyKeyException}.
 * </ul>
 *
 * A listener that takes the poll's {@code ConsumerRecords} is refused: it must take a {@code List}.
 * A partial acknowledgement ({@code acknowledge(index)}) and a {@code nack} are refused with an
 * exception that says what to do instead.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class IdempotentKafkaBatchListener<K, V>
    extends AbstractDelegatingMessageListenerAdapter<BatchMessageListener<K, V>>
    implements BatchAcknowledgingConsumerAwareMessageListener<K, V> {
  private final MessageIdempotency idempotency;
  private final Function<ConsumerRecord<?, ?>, String> keyFunction;

  /**
   * @param delegate the batch listener; it must take a {@code List} of records
   * @param idempotency the consumer's protocol: its scope (name the consumer), store and wait bound
   * @param keyFunction the key of a record in place of its header or offset, or {@code null}
   */
  public IdempotentKafkaBatchListener(
      BatchMessageListener<K, V> delegate,
      MessageIdempotency idempotency,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    super(delegate);
    if (delegate.wantsPollResult()) {
      throw new IllegalStateException(
          "the idempotent Kafka batch listener cannot hand a listener that takes the poll's"
              + " ConsumerRecords only the records to run (scope "
              + idempotency.scope()
              + "): let the listener take a List<ConsumerRecord>");
    }
    this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
    this.keyFunction = keyFunction;
  }

  @Override
  public void onMessage(
      List<ConsumerRecord<K, V>> records, Acknowledgment ack, Consumer<?, ?> consumer) {
    List<MessageKey> keys = new ArrayList<>(records.size());
    IdempotencyKeyException keyFailure = null;
    for (ConsumerRecord<K, V> record : records) {
      try {
        keys.add(IdempotentKafkaRecordListener.keyOf(record, idempotency.scope(), keyFunction));
      } catch (IdempotencyKeyException e) {
        keyFailure = e;
        break;
      }
    }
    List<ConsumerRecord<K, V>> handled = records.subList(0, keys.size());
    HeldAcknowledgment held = ack == null ? null : new HeldAcknowledgment(ack);
    MessageBatchOutcome outcome;
    try {
      outcome =
          idempotency.handleBatch(
              keys, indexes -> run(handled, indexes, held, consumer), this::failedIndex);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    if (!outcome.complete()) {
      throw new BatchListenerFailedException(
          outcome.stopCause().getMessage(), outcome.stopCause(), outcome.stopIndex());
    }
    if (keyFailure != null) {
      throw new BatchListenerFailedException(keyFailure.getMessage(), keyFailure, keys.size());
    }
    if (held != null) {
      held.sendOrAcknowledge();
    }
  }

  private void run(
      List<ConsumerRecord<K, V>> records,
      List<Integer> indexes,
      Acknowledgment ack,
      Consumer<?, ?> consumer) {
    if (ack instanceof HeldAcknowledgment held) {
      held.listenerCalled = true;
    }
    List<ConsumerRecord<K, V>> toRun = new ArrayList<>(indexes.size());
    for (int i : indexes) {
      toRun.add(records.get(i));
    }
    try {
      switch (delegateType) {
        case ACKNOWLEDGING_CONSUMER_AWARE -> delegate.onMessage(toRun, ack, consumer);
        case ACKNOWLEDGING -> delegate.onMessage(toRun, ack);
        case CONSUMER_AWARE -> delegate.onMessage(toRun, consumer);
        case SIMPLE -> delegate.onMessage(toRun);
      }
    } catch (BatchListenerFailedException e) {
      int inRun = e.getRecord() != null ? indexOf(toRun, e.getRecord()) : e.getIndex();
      if (inRun < 0 || inRun >= indexes.size()) {
        throw e;
      }
      // the listener's index is in the records it got; the error handler's is in the poll
      BatchListenerFailedException inPoll =
          new BatchListenerFailedException(e.getMessage(), e.getCause(), indexes.get(inRun));
      inPoll.setStackTrace(e.getStackTrace());
      throw inPoll;
    }
  }

  private int failedIndex(Exception e) {
    return e instanceof BatchListenerFailedException failed ? failed.getIndex() : -1;
  }

  private static int indexOf(List<? extends ConsumerRecord<?, ?>> records, ConsumerRecord<?, ?> r) {
    for (int i = 0; i < records.size(); i++) {
      if (records.get(i) == r) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void onMessage(List<ConsumerRecord<K, V>> data) {
    onMessage(data, null, null);
  }

  @Override
  public void onMessage(List<ConsumerRecord<K, V>> data, Acknowledgment acknowledgment) {
    onMessage(data, acknowledgment, null);
  }

  @Override
  public void onMessage(List<ConsumerRecord<K, V>> data, Consumer<?, ?> consumer) {
    onMessage(data, null, consumer);
  }

  /** The listener's acknowledgment, held until every outcome of the batch is recorded. */
  private static final class HeldAcknowledgment implements Acknowledgment {
    private final Acknowledgment ack;
    private volatile boolean listenerCalled;
    private volatile boolean acknowledged;

    HeldAcknowledgment(Acknowledgment ack) {
      this.ack = ack;
    }

    @Override
    public void acknowledge() {
      // held: sent once the batch's outcomes are recorded, not at all when the batch stopped early
      acknowledged = true;
    }

    @Override
    public void acknowledge(int index) {
      // the listener's index is in the records it got, and an outcome is recorded only once the
      // listener returns: a partial commit would run ahead of the record
      throw new IllegalStateException(
          "an idempotent batch listener acknowledges the whole batch once every outcome is"
              + " recorded: call acknowledge(), or throw a BatchListenerFailedException naming the"
              + " record that failed (the records before it are recorded and committed)");
    }

    @Override
    public void nack(Duration sleep) {
      throw IdempotentKafkaRecordListener.refusedNack();
    }

    @Override
    public void nack(int index, Duration sleep) {
      throw IdempotentKafkaRecordListener.refusedNack();
    }

    /** Sends the listener's acknowledgement, or acknowledges a poll of replays only. */
    void sendOrAcknowledge() {
      if (acknowledged || !listenerCalled) {
        ack.acknowledge();
      }
    }
  }
}
