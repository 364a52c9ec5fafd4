package dev.idempotent.messaging.kafka;

import dev.idempotent.IdempotencyClaim;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;

/**
 * The container's transaction manager, wrapped so that a record's outcome becomes visible only with
 * the transaction the record ran in: {@link IdempotentKafkaRecordListener} hands each claim it ran
 * to the transaction of its thread ({@link #settleWithTransaction}), and the claim stays held (its
 * lease renewed) until the transaction ends. It is then completed when the transaction committed,
 * released when it rolled back (a consumer fenced after overrunning {@code max.poll.interval.ms}
 * cannot commit, and the partition's new owner runs the record), and settled as an ambiguous
 * failure ({@code onAmbiguousFailure}) when the commit failed, whose end is unknown.
 *
 * <p>A transaction manager's own synchronization is not used: {@code KafkaTransactionManager} runs
 * without one by default.
 */
class SettlingTransactionManager implements PlatformTransactionManager {
  private static final Logger LOG = LoggerFactory.getLogger(SettlingTransactionManager.class);

  /** The claims run in each open transaction of this thread, innermost last. */
  private static final ThreadLocal<Deque<List<Settlement>>> OPEN =
      ThreadLocal.withInitial(ArrayDeque::new);

  private final PlatformTransactionManager delegate;

  SettlingTransactionManager(PlatformTransactionManager delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The container's transaction manager (a Kafka-aware one keeps its producer factory). */
  static PlatformTransactionManager over(PlatformTransactionManager delegate) {
    if (delegate instanceof SettlingTransactionManager) {
      return delegate;
    }
    if (delegate instanceof KafkaAwareTransactionManager<?, ?> kafka) {
      return new KafkaAware<>(kafka);
    }
    return new SettlingTransactionManager(delegate);
  }

  /** Whether this thread runs in a transaction of a wrapped container transaction manager. */
  static boolean inTransaction() {
    return !OPEN.get().isEmpty();
  }

  /** Settles {@code claim} when this thread's innermost transaction ends. */
  static void settleWithTransaction(IdempotencyClaim claim, String scope) {
    Deque<List<Settlement>> open = OPEN.get();
    if (open.isEmpty()) {
      throw new IllegalStateException(
          "no container transaction on this thread (scope " + scope + ")");
    }
    open.peekLast().add(new Settlement(claim, scope));
  }

  PlatformTransactionManager delegate() {
    return delegate;
  }

  @Override
  public TransactionStatus getTransaction(TransactionDefinition definition)
      throws TransactionException {
    TransactionStatus status = delegate.getTransaction(definition);
    OPEN.get().addLast(new ArrayList<>());
    return status;
  }

  @Override
  public void commit(TransactionStatus status) throws TransactionException {
    List<Settlement> claims = close();
    boolean rollbackOnly = status.isRollbackOnly();
    try {
      delegate.commit(status);
    } catch (RuntimeException | Error e) {
      settle(claims, Outcome.UNKNOWN);
      throw e;
    }
    settle(claims, rollbackOnly ? Outcome.ROLLED_BACK : Outcome.COMMITTED);
  }

  @Override
  public void rollback(TransactionStatus status) throws TransactionException {
    List<Settlement> claims = close();
    try {
      delegate.rollback(status);
    } finally {
      settle(claims, Outcome.ROLLED_BACK);
    }
  }

  private static List<Settlement> close() {
    Deque<List<Settlement>> open = OPEN.get();
    List<Settlement> claims = open.isEmpty() ? List.of() : open.removeLast();
    if (open.isEmpty()) {
      OPEN.remove();
    }
    return claims;
  }

  private enum Outcome {
    COMMITTED,
    ROLLED_BACK,
    UNKNOWN
  }

  private static void settle(List<Settlement> claims, Outcome outcome) {
    for (Settlement s : claims) {
      try {
        CompletionStage<?> settled =
            switch (outcome) {
              case COMMITTED -> s.claim().complete(null);
              case ROLLED_BACK -> s.claim().release();
              case UNKNOWN ->
                  s.claim()
                      .fail(
                          new IllegalStateException(
                              "the commit of the Kafka transaction this record ran in failed: its"
                                  + " outcome is unknown"));
            };
        settled.toCompletableFuture().join();
      } catch (RuntimeException e) {
        LOG.warn(
            "a record of scope {} could not be settled after its transaction ended ({}); its key"
                + " stays claimed until its lease ends",
            s.scope(),
            outcome,
            e);
      }
    }
  }

  private record Settlement(IdempotencyClaim claim, String scope) {}

  /** Over a Kafka-aware transaction manager, whose producer factory the container uses. */
  static final class KafkaAware<K, V> extends SettlingTransactionManager
      implements KafkaAwareTransactionManager<K, V> {
    private final KafkaAwareTransactionManager<K, V> kafka;

    KafkaAware(KafkaAwareTransactionManager<K, V> delegate) {
      super(delegate);
      this.kafka = delegate;
    }

    @Override
    public ProducerFactory<K, V> getProducerFactory() {
      return kafka.getProducerFactory();
    }
  }
}
