package dev.idempotent.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MessageIdempotencyTest {
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder()
              .defaultStore(CaffeineIdempotencyStore.builder().build())
              .build());
  private final MessageIdempotency consumer =
      MessageIdempotency.builder("orders.consumer")
          .idempotency(idempotency)
          .inProgressWait(Duration.ofMillis(200))
          .build();
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void aRedeliveryIsReplayedNotRun() throws Exception {
    MessageKey key = MessageKey.brokerIdentity("amqp-message-id", "m-1", consumer.scope());
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.PROCESSED);
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.REPLAYED);
    assertThat(runs).hasValue(1);
    assertThat(idempotency.inspect("", "orders.consumer", key.value())).isPresent();
  }

  @Test
  void aFailureIsRethrownUnchangedAndReleasesTheKey() throws Exception {
    MessageKey key = MessageKey.fromHeader("order-7", consumer.scope());
    IOException failure = new IOException("database down");
    assertThatThrownBy(
            () ->
                consumer.handle(
                    key,
                    () -> {
                      runs.incrementAndGet();
                      throw failure;
                    }))
        .isSameAs(failure);
    assertThat(idempotency.inspect("", "orders.consumer", key.value())).isEmpty();
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.PROCESSED);
    assertThat(runs).hasValue(2);
  }

  @Test
  void aRecordedFailureIsRethrownOnRedelivery() throws Exception {
    MessageIdempotency recording =
        MessageIdempotency.builder("orders.recording")
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder().recordFailures(IllegalStateException.class).build())
            .build();
    MessageKey key = MessageKey.of("order-8", recording.scope());
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () ->
                  recording.handle(
                      key,
                      () -> {
                        runs.incrementAndGet();
                        throw new IllegalStateException("rejected order");
                      }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("rejected order");
    }
    assertThat(runs).hasValue(1);
  }

  /** What a container does to a listener's exception before an adapter sees it. */
  static final class ContainerWrapper extends RuntimeException {
    ContainerWrapper(Throwable cause) {
      super("listener threw", cause);
    }
  }

  @Test
  void aRecordedFailureWrappedByTheContainerIsRecordedAsItsCauseAndRethrownAsThrown()
      throws Exception {
    MessageIdempotency recording =
        MessageIdempotency.builder("orders.wrapped")
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder().recordFailures(IllegalStateException.class).build())
            .build();
    MessageKey key = MessageKey.of("order-9", recording.scope());
    ContainerWrapper thrown =
        new ContainerWrapper(new ContainerWrapper(new IllegalStateException("declined")));
    assertThatThrownBy(
            () ->
                recording.handle(
                    key,
                    () -> {
                      runs.incrementAndGet();
                      throw thrown;
                    }))
        .isSameAs(thrown);
    assertThat(idempotency.inspect("", "orders.wrapped", key.value()))
        .hasValueSatisfying(r -> assertThat(r.status().name()).isEqualTo("COMPLETED"));
    Throwable replayed = catchThrowable(() -> recording.handle(key, runs::incrementAndGet));
    assertThat(replayed).isInstanceOf(IllegalStateException.class).hasMessage("declined");
    assertThat(recording.isRecordedFailure(replayed)).isTrue();
    assertThat(recording.isRecordedFailure(new ContainerWrapper(null))).isFalse();
    assertThat(runs).hasValue(1);
  }

  @Test
  void aWrappedFailureThatIsNotRecordedReleasesTheKey() throws Exception {
    MessageKey key = MessageKey.of("order-10", consumer.scope());
    ContainerWrapper thrown = new ContainerWrapper(new IOException("database down"));
    assertThatThrownBy(
            () ->
                consumer.handle(
                    key,
                    () -> {
                      runs.incrementAndGet();
                      throw thrown;
                    }))
        .isSameAs(thrown);
    assertThat(idempotency.inspect("", "orders.consumer", key.value())).isEmpty();
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.PROCESSED);
    assertThat(runs).hasValue(2);
  }

  private List<MessageKey> keys(String... values) {
    List<MessageKey> keys = new ArrayList<>();
    for (String v : values) {
      keys.add(MessageKey.fromHeader(v, consumer.scope()));
    }
    return keys;
  }

  @Test
  void aBatchRunsOnlyItsNewKeysOnceAndRecordsThemBeforeReturning() throws Exception {
    List<List<Integer>> calls = new ArrayList<>();
    MessageBatchOutcome first = consumer.handleBatch(keys("a", "b", "a", "c"), calls::add, e -> -1);
    assertThat(calls).containsExactly(List.of(0, 1, 3));
    assertThat(first.complete()).isTrue();
    assertThat(first.outcomes())
        .containsExactly(
            MessageOutcome.PROCESSED,
            MessageOutcome.PROCESSED,
            MessageOutcome.REPLAYED,
            MessageOutcome.PROCESSED);
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:c")).isPresent();
    MessageBatchOutcome again = consumer.handleBatch(keys("c", "d"), calls::add, e -> -1);
    assertThat(calls).containsExactly(List.of(0, 1, 3), List.of(1));
    assertThat(again.outcomes()).containsExactly(MessageOutcome.REPLAYED, MessageOutcome.PROCESSED);
  }

  @Test
  void aBatchStopsAtAKeyInProgressAndReleasesTheClaimsAfterIt() throws Exception {
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<MessageOutcome> holder =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return consumer.handle(
                    keys("held").get(0),
                    () -> {
                      holding.countDown();
                      finish.await();
                    });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
    List<List<Integer>> calls = new ArrayList<>();
    MessageBatchOutcome outcome = consumer.handleBatch(keys("x", "held", "y"), calls::add, e -> -1);
    finish.countDown();
    assertThat(holder.get(5, TimeUnit.SECONDS)).isEqualTo(MessageOutcome.PROCESSED);
    assertThat(calls).containsExactly(List.of(0));
    assertThat(outcome.stopIndex()).isEqualTo(1);
    assertThat(outcome.stopCause()).isInstanceOf(MessageInProgressException.class);
    assertThat(outcome.outcomes()).containsExactly(MessageOutcome.PROCESSED);
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:x")).isPresent();
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:y")).isEmpty();
  }

  @Test
  void aBatchFailingAtOneMessageRecordsTheOnesBeforeAndReleasesTheRest() throws Exception {
    IOException failure = new IOException("row 1 failed");
    assertThatThrownBy(
            () ->
                consumer.handleBatch(
                    keys("p", "q", "r"),
                    indexes -> {
                      throw failure;
                    },
                    e -> e == failure ? 1 : -1))
        .isSameAs(failure);
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:p")).isPresent();
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:q")).isEmpty();
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:r")).isEmpty();
    assertThatThrownBy(
            () ->
                consumer.handleBatch(
                    keys("q", "r"),
                    indexes -> {
                      throw failure;
                    },
                    e -> -1))
        .isSameAs(failure);
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:q")).isEmpty();
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:r")).isEmpty();
  }

  @Test
  void aBatchHandlerThrowingAnErrorReleasesEveryClaimAndTheErrorGoesOn() throws Exception {
    StackOverflowError error = new StackOverflowError("listener recursed");
    assertThatThrownBy(
            () ->
                consumer.handleBatch(
                    keys("s", "t"),
                    indexes -> {
                      throw error;
                    },
                    e -> -1))
        .isSameAs(error);
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:s")).isEmpty();
    assertThat(idempotency.inspect("", "orders.consumer", "idempotency-key:t")).isEmpty();
    List<List<Integer>> calls = new ArrayList<>();
    MessageBatchOutcome again = consumer.handleBatch(keys("s", "t"), calls::add, e -> -1);
    assertThat(again.complete()).isTrue();
    assertThat(calls).containsExactly(List.of(0, 1));
  }

  @Test
  void aDeliveryInProgressElsewhereWaitsTheBoundThenAnswersInProgress() throws Exception {
    MessageKey key = MessageKey.fromHeader("order-9", consumer.scope());
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<MessageOutcome> first =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return consumer.handle(
                    key,
                    () -> {
                      runs.incrementAndGet();
                      started.countDown();
                      finish.await();
                    });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    long start = System.nanoTime();
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.IN_PROGRESS);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(150));
    finish.countDown();
    assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo(MessageOutcome.PROCESSED);
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.REPLAYED);
    assertThat(runs).hasValue(1);
  }

  @Test
  void theHandlersOwnInProgressFailureIsNotTakenForTheMessages() {
    MessageKey key = MessageKey.fromHeader("order-10", consumer.scope());
    IdempotencyInProgressException own =
        new IdempotencyInProgressException("payments", "key#x", Duration.ofSeconds(1), null);
    assertThatThrownBy(
            () ->
                consumer.handle(
                    key,
                    () -> {
                      throw own;
                    }))
        .isSameAs(own);
  }

  private MessageIdempotency blocking() {
    return MessageIdempotency.builder("orders.blocking")
        .idempotency(idempotency)
        .settings(
            IdempotencySettings.builder().onAmbiguousFailure(OnAmbiguousFailure.BLOCK).build())
        .inProgressWait(Duration.ofSeconds(5))
        .build();
  }

  private void block(MessageIdempotency blocking, MessageKey key) {
    IOException ambiguous = new IOException("connection reset after the charge was sent");
    assertThatThrownBy(
            () ->
                blocking.handle(
                    key,
                    () -> {
                      runs.incrementAndGet();
                      throw ambiguous;
                    }))
        .isSameAs(ambiguous);
  }

  @Test
  void aBlockedKeyIsAFinalFailureAtOnceNeverInProgress() throws Exception {
    MessageIdempotency blocking = blocking();
    MessageKey key = MessageKey.fromHeader("order-blocked", blocking.scope());
    block(blocking, key);
    long start = System.nanoTime();
    Throwable repeat = catchThrowable(() -> blocking.handle(key, runs::incrementAndGet));
    // no wait for a run that will never finish it: well under the 5 s in-progress wait
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    assertThat(repeat).isInstanceOf(IdempotencyBlockedException.class);
    assertThat(blocking.isRecordedFailure(repeat)).isTrue();
    assertThat(runs).hasValue(1);
    assertThatThrownBy(() -> blocking.claim(key)).isInstanceOf(IdempotencyBlockedException.class);
  }

  @Test
  void aBatchStopsAtABlockedKeyWithTheBlockedExceptionAsAFinalFailure() throws Exception {
    MessageIdempotency blocking = blocking();
    block(blocking, MessageKey.fromHeader("b", blocking.scope()));
    List<List<Integer>> calls = new ArrayList<>();
    MessageBatchOutcome outcome =
        blocking.handleBatch(
            List.of(
                MessageKey.fromHeader("a", blocking.scope()),
                MessageKey.fromHeader("b", blocking.scope()),
                MessageKey.fromHeader("c", blocking.scope())),
            calls::add,
            e -> -1);
    assertThat(calls).containsExactly(List.of(0));
    assertThat(outcome.stopIndex()).isEqualTo(1);
    assertThat(outcome.stopCause()).isInstanceOf(IdempotencyBlockedException.class);
    assertThat(blocking.isRecordedFailure(outcome.stopCause())).isTrue();
    assertThat(idempotency.inspect("", "orders.blocking", "idempotency-key:c")).isEmpty();
  }

  @Test
  void aClaimSettledLaterRecordsOnlyOnCompleteAndReleasesOnRelease() throws Exception {
    MessageKey key = MessageKey.fromHeader("manual-1", consumer.scope());
    MessageClaim first = consumer.claim(key);
    assertThat(first.runs()).isTrue();
    assertThat(idempotency.inspect("", "orders.consumer", key.value()))
        .hasValueSatisfying(r -> assertThat(r.status().name()).isEqualTo("IN_PROGRESS"));
    assertThat(consumer.claim(key).outcome()).isEqualTo(MessageOutcome.IN_PROGRESS);
    first.release();
    first.complete(); // settled already: does nothing
    assertThat(idempotency.inspect("", "orders.consumer", key.value())).isEmpty();
    MessageClaim second = consumer.claim(key);
    assertThat(second.runs()).isTrue();
    second.complete();
    MessageClaim third = consumer.claim(key);
    assertThat(third.runs()).isFalse();
    assertThat(third.outcome()).isEqualTo(MessageOutcome.REPLAYED);
  }

  @Test
  void keysFromEachSourceNeverCollide() {
    String scope = consumer.scope();
    assertThat(MessageKey.fromHeader("a", scope))
        .isNotEqualTo(MessageKey.brokerIdentity("amqp-message-id", "a", scope))
        .isNotEqualTo(MessageKey.of("a", scope));
    assertThat(MessageKey.resolve("h", "amqp-message-id", "m", scope))
        .isEqualTo(MessageKey.fromHeader("h", scope));
    assertThat(MessageKey.resolve(null, "amqp-message-id", "m", scope))
        .isEqualTo(MessageKey.brokerIdentity("amqp-message-id", "m", scope));
  }

  @Test
  void aMessageWithoutIdentityIsAClearError() {
    assertThatThrownBy(() -> MessageKey.resolve(null, "amqp-message-id", null, "orders.consumer"))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("no Idempotency-Key header and no amqp-message-id")
        .hasMessageContaining("key function")
        .hasMessageContaining("orders.consumer");
  }

  @Test
  void aKeyTheMessageSendsIsBounded() {
    assertThatThrownBy(() -> MessageKey.fromHeader("x".repeat(256), "s"))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("256 characters long");
    assertThatThrownBy(() -> MessageKey.fromHeader(" ", "s"))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> MessageKey.brokerIdentity("amqp-message-id", "a\nb", "s"))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("control character");
    assertThatThrownBy(() -> MessageKey.of(null, "s"))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("key function returned null");
  }
}
