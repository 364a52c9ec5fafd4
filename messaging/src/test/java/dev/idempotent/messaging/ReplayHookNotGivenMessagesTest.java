package dev.idempotent.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A consumer's outcome is nothing (a message was processed), not a method's value: a {@code
 * ReplayHook} written for method results never sees it, so one that reads its value cannot turn a
 * redelivery into a failure.
 */
class ReplayHookNotGivenMessagesTest {
  private final List<Object> hooked = new CopyOnWriteArrayList<>();
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder()
              .defaultStore(CaffeineIdempotencyStore.builder().build())
              .replayHook(
                  (scope, value) -> {
                    hooked.add(String.valueOf(value));
                    return value.toString() + " (replayed)"; // written for method results
                  })
              .build());
  private final MessageIdempotency consumer =
      MessageIdempotency.builder("orders.consumer").idempotency(idempotency).build();
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void aRedeliveryIsReplayedWithoutTheHook() throws Exception {
    MessageKey key = MessageKey.fromHeader("order-7", consumer.scope());
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.PROCESSED);
    assertThat(consumer.handle(key, runs::incrementAndGet)).isEqualTo(MessageOutcome.REPLAYED);
    assertThat(runs).hasValue(1);
    assertThat(hooked).isEmpty();
  }

  @Test
  void aRedeliveredBatchIsReplayedWithoutTheHook() throws Exception {
    List<MessageKey> keys =
        List.of(
            MessageKey.fromHeader("a", consumer.scope()),
            MessageKey.fromHeader("b", consumer.scope()));
    List<List<Integer>> calls = new ArrayList<>();
    consumer.handleBatch(keys, calls::add, e -> -1);
    MessageBatchOutcome again = consumer.handleBatch(keys, calls::add, e -> -1);
    assertThat(again.outcomes()).containsExactly(MessageOutcome.REPLAYED, MessageOutcome.REPLAYED);
    assertThat(calls).hasSize(1);
    assertThat(hooked).isEmpty();
  }
}
