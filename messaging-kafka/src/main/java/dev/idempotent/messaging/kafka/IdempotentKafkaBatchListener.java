package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.OnAmbiguousFailure;
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
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.transaction.support.TransactionSynchronizationManager;

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
 *       is held until then; a listener that returns without acknowledging has its records' claims
 *       released, never recorded (this needs {@code onAmbiguousFailure = RELEASE}); when every
 *       record was a replay, the wrapper acknowledges.
 *   <li>With a scope per topic ({@link IdempotentKafkaRecordListener#perTopic}), a poll of several
 *       topics is handled run by run of records of one topic, one listener call each.
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
 * A container with a transaction manager is refused: the outcomes would be recorded before the
 * transaction commits (use a record listener there). A partial acknowledgement ({@code
 * acknowledge(index)}) and a {@code nack} are refused with an exception that says what to do
 * instead.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class IdempotentKafkaBatchListener<K, V>
    extends AbstractDelegatingMessageListenerAdapter<BatchMessageListener<K, V>>
    implements BatchAcknowledgingConsumerAwareMessageListener<K, V> {
  private final TopicScopes scopes;
  private final Function<ConsumerRecord<?, ?>, String> keyFunction;
  private final boolean manualAck;

  /**
   * A listener whose records are filed under one scope, whatever their topic, in a container whose
   * {@code AckMode} is not {@code MANUAL} or {@code MANUAL_IMMEDIATE}.
   *
   * @param delegate the batch listener; it must take a {@code List} of records
   * @param idempotency the consumer's protocol: its scope (name the consumer), store and wait bound
   * @param keyFunction the key of a record in place of its header or offset, or {@code null}
   */
  public IdempotentKafkaBatchListener(
      BatchMessageListener<K, V> delegate,
      MessageIdempotency idempotency,
      Function<ConsumerRecord<?, ?>, String> keyFunction) {
    this(delegate, topic -> idempotency, keyFunction, null);
    Objects.requireNonNull(idempotency, "idempotency");
  }

  /**
   * @param delegate the batch listener; it must take a {@code List} of records
   * @param idempotencyOfTopic the consumer's protocol for the records of a topic (see {@link
   *     IdempotentKafkaRecordListener#perTopic})
   * @param keyFunction the key of a record in place of its header or offset, or {@code null}
   * @param ackMode the container's acknowledgement mode; with {@code MANUAL} and {@code
   *     MANUAL_IMMEDIATE} the outcomes are recorded only when the listener acknowledges
   */
  public IdempotentKafkaBatchListener(
      BatchMessageListener<K, V> delegate,
      Function<String, MessageIdempotency> idempotencyOfTopic,
      Function<ConsumerRecord<?, ?>, String> keyFunction,
      ContainerProperties.AckMode ackMode) {
    super(delegate);
    if (delegate.wantsPollResult()) {
      throw new IllegalStateException(
          "the idempotent Kafka batch listener cannot hand a listener that takes the poll's"
              + " ConsumerRecords only the records to run: let the listener take a"
              + " List<ConsumerRecord>");
    }
    this.scopes = new TopicScopes(idempotencyOfTopic);
    this.keyFunction = keyFunction;
    this.manualAck = IdempotentKafkaRecordListener.isManual(ackMode);
  }

  /** The scope the records of {@code topic} are filed under. */
  public String scopeOf(String topic) {
    return scopes.of(topic).idempotency().scope();
  }

  /** Why a batch listener in a container with a transaction manager is refused. */
  static IllegalStateException refusedTransaction(String listenerId) {
    return new IllegalStateException(
        "the container "
            + listenerId
            + " runs a batch listener in a transaction: an idempotent batch listener records its"
            + " outcomes when the listener returns, before the transaction commits, so a"
            + " transaction that cannot commit (a consumer fenced after overrunning"
            + " max.poll.interval.ms) would leave its records replayed and their output lost;"
            + " use a record listener, whose outcome is recorded when its transaction commits, or"
            + " remove the transaction manager");
  }

  @Override
  public void onMessage(
      List<ConsumerRecord<K, V>> records, Acknowledgment ack, Consumer<?, ?> consumer) {
    if (SettlingTransactionManager.inTransaction()
        || TransactionSynchronizationManager.isActualTransactionActive()) {
      throw refusedTransaction("of this listener");
    }
    List<MessageKey> keys = new ArrayList<>(records.size());
    IdempotencyKeyException keyFailure = null;
    for (ConsumerRecord<K, V> record : records) {
      try {
        keys.add(
            IdempotentKafkaRecordListener.keyOf(
                record, scopes.of(record.topic()).idempotency().scope(), keyFunction));
      } catch (IdempotencyKeyException e) {
        keyFailure = e;
        break;
      }
    }
    List<ConsumerRecord<K, V>> handled = records.subList(0, keys.size());
    HeldAcknowledgment held = ack == null ? null : new HeldAcknowledgment(ack);
    // the records of a topic are filed under its scope: with a scope per topic, a poll of several
    // topics is handled run by run of records of one scope, one listener call each
    int from = 0;
    while (from < handled.size()) {
      MessageIdempotency idempotency = scopes.of(handled.get(from).topic()).idempotency();
      int to = from + 1;
      while (to < handled.size()
          && scopes.of(handled.get(to).topic()).idempotency() == idempotency) {
        to++;
      }
      handleRun(handled, keys, from, to, idempotency, held, consumer);
      from = to;
    }
    if (keyFailure != null) {
      throw new BatchListenerFailedException(keyFailure.getMessage(), keyFailure, keys.size());
    }
    if (held != null) {
      held.sendOrAcknowledge();
    }
  }

  /** Handles the records {@code from} (inclusive) to {@code to} of the poll, all of one topic. */
  private void handleRun(
      List<ConsumerRecord<K, V>> records,
      List<MessageKey> keys,
      int from,
      int to,
      MessageIdempotency idempotency,
      HeldAcknowledgment held,
      Consumer<?, ?> consumer) {
    if (manualAck
        && held != null
        && idempotency.settings().onAmbiguousFailure() != OnAmbiguousFailure.RELEASE) {
      throw new IllegalStateException(
          "an idempotent batch listener with MANUAL acknowledgement releases the keys of a batch"
              + " it does not acknowledge, which needs onAmbiguousFailure = RELEASE (scope "
              + idempotency.scope()
              + " has "
              + idempotency.settings().onAmbiguousFailure()
              + "): use RELEASE, or a record listener");
    }
    MessageBatchOutcome outcome;
    try {
      outcome =
          idempotency.handleBatch(
              keys.subList(from, to),
              indexes -> run(records, from, indexes, held, consumer),
              e -> failedIndex(e, from, to));
    } catch (NotAcknowledged e) {
      held.withheld = true; // the listener did not acknowledge: its records were released
      return;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    if (!outcome.complete()) {
      throw new BatchListenerFailedException(
          outcome.stopCause().getMessage(), outcome.stopCause(), from + outcome.stopIndex());
    }
  }

  private void run(
      List<ConsumerRecord<K, V>> records,
      int from,
      List<Integer> indexes,
      HeldAcknowledgment held,
      Consumer<?, ?> consumer) {
    if (held != null) {
      held.listenerCalled = true;
      held.acknowledged = false;
    }
    List<ConsumerRecord<K, V>> toRun = new ArrayList<>(indexes.size());
    for (int i : indexes) {
      toRun.add(records.get(from + i));
    }
    try {
      switch (delegateType) {
        case ACKNOWLEDGING_CONSUMER_AWARE -> delegate.onMessage(toRun, held, consumer);
        case ACKNOWLEDGING -> delegate.onMessage(toRun, held);
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
          new BatchListenerFailedException(e.getMessage(), e.getCause(), from + indexes.get(inRun));
      inPoll.setStackTrace(e.getStackTrace());
      throw inPoll;
    }
    if (manualAck && held != null && !held.acknowledged) {
      throw new NotAcknowledged();
    }
  }

  /**
   * A batch listener with {@code MANUAL} acknowledgement returned without acknowledging: its
   * records' claims are released (never recorded as processed), and nothing is acknowledged.
   */
  private static final class NotAcknowledged extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotAcknowledged() {
      super("the batch listener returned without acknowledging its records", null, false, false);
    }
  }

  /** The index, in the run {@code from} to {@code to}, of the record {@code e} names, or -1. */
  private static int failedIndex(Exception e, int from, int to) {
    if (e instanceof BatchListenerFailedException failed
        && failed.getIndex() >= from
        && failed.getIndex() < to) {
      return failed.getIndex() - from;
    }
    return -1;
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
    private volatile boolean withheld;

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
      if (!withheld && (acknowledged || !listenerCalled)) {
        ack.acknowledge();
      }
    }
  }
}
