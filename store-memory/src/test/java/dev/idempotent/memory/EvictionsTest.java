package dev.idempotent.memory;

import static dev.idempotent.memory.CompletionOrderTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** The eviction scheduling on its own: when a run is queued, what it evicts, and the fallbacks. */
class EvictionsTest {
  /** A maximum of 640 records, with a slack of 10. */
  private final CompletionOrder order = new CompletionOrder(640);

  private final List<Runnable> queued = new ArrayList<>();
  private final List<MemoryRecord> evicted = new ArrayList<>();
  private final Evictions evictions = new Evictions(order, queued::add, evicted::add);
  private final List<MemoryRecord> added = new ArrayList<>();

  @Test
  void withinTheMaximumNothingIsQueued() {
    complete(640);

    assertThat(queued).isEmpty();
    assertThat(evicted).isEmpty();
  }

  @Test
  void completionsPastTheMaximumQueueOneRunThatEvictsTheOldestDownToTheMaximum() {
    complete(641);
    assertThat(queued).as("a run for the first completion past the maximum").hasSize(1);
    assertThat(evicted).as("nothing evicted on the completing thread").isEmpty();

    complete(1);
    assertThat(queued).as("the queued run serves the next completion too").hasSize(1);

    queued.remove(0).run();

    assertThat(evicted).containsExactly(added.get(0), added.get(1));
    assertThat(order.size()).isEqualTo(640);
    complete(1);
    assertThat(queued).as("a new run once the last one ended").hasSize(1);
  }

  @Test
  void pastTheSlackTheCompletingThreadEvictsTheOldestItself() {
    complete(650);
    assertThat(queued).hasSize(1);
    assertThat(evicted).as("within the slack").isEmpty();

    complete(3);

    assertThat(evicted).containsExactlyElementsOf(added.subList(0, 3));
    assertThat(order.size()).isEqualTo(650);
    queued.remove(0).run();
    assertThat(evicted).containsExactlyElementsOf(added.subList(0, 13));
    assertThat(order.size()).isEqualTo(640);
  }

  @Test
  void anExecutorThatRefusesTheRunLeavesTheEvictionToTheCompletingThread() {
    Evictions refused =
        new Evictions(
            order,
            task -> {
              throw new RejectedExecutionException("shut down");
            },
            evicted::add);
    for (int i = 0; i < 660; i++) {
      MemoryRecord r = record("k" + i);
      added.add(r);
      refused.afterCompletion(order.add(r));
    }

    assertThat(order.size()).isEqualTo(640);
    assertThat(evicted).containsExactlyElementsOf(added.subList(0, 20));
  }

  @Test
  void evictOverflowEvictsOnTheCallingThread() {
    complete(700);
    assertThat(evicted).as("past the slack, one each").hasSize(50);
    queued.clear();

    evictions.evictOverflow();

    assertThat(evicted).containsExactlyElementsOf(added.subList(0, 60));
    assertThat(order.size()).isEqualTo(640);
  }

  private void complete(int count) {
    for (int i = 0; i < count; i++) {
      MemoryRecord r = record("k" + added.size());
      added.add(r);
      evictions.afterCompletion(order.add(r));
    }
  }
}
