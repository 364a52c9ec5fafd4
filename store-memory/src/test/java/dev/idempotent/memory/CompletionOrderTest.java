package dev.idempotent.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.memory.CompletionOrder.Admission;
import dev.idempotent.spi.RecordKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The size bound on its own: the order of completions, the slack and what each add asks for. */
class CompletionOrderTest {

  @Test
  void theSlackIsAFiftyFourthOfTheMaximumBetweenOneAnd1024() {
    assertThat(new CompletionOrder(1).slack()).isEqualTo(1);
    assertThat(new CompletionOrder(63).slack()).isEqualTo(1);
    assertThat(new CompletionOrder(640).slack()).isEqualTo(10);
    assertThat(new CompletionOrder(64 * 1024).slack()).isEqualTo(1024);
    assertThat(new CompletionOrder(10_000_000).slack()).isEqualTo(1024);
  }

  @Test
  void eachAddSaysWhetherTheOrderIsWithinTheMaximumWithinTheSlackOrPastIt() {
    CompletionOrder order = new CompletionOrder(128);
    List<Admission> admissions = new ArrayList<>();
    for (int i = 0; i < 131; i++) {
      admissions.add(order.add(record("k" + i)));
    }

    assertThat(admissions.subList(0, 128)).containsOnly(Admission.WITHIN_BOUND);
    assertThat(admissions.subList(128, 130)).containsOnly(Admission.EVICTION_DUE);
    assertThat(admissions.get(130)).isEqualTo(Admission.EVICT_NOW);
    assertThat(order.size()).isEqualTo(131);
    assertThat(order.isOverMaximum()).isTrue();
  }

  @Test
  void overflowLeavesOldestFirstUntilTheMaximumIsLeft() {
    CompletionOrder order = new CompletionOrder(3);
    List<MemoryRecord> added = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      MemoryRecord r = record("k" + i);
      added.add(r);
      order.add(r);
    }

    assertThat(order.pollOverflow()).isSameAs(added.get(0));
    assertThat(order.pollOverflow()).isSameAs(added.get(1));
    assertThat(order.pollOverflow()).isSameAs(added.get(2));
    assertThat(order.pollOverflow()).as("within the maximum").isNull();
    assertThat(order.size()).isEqualTo(3);
    assertThat(order.isOverMaximum()).isFalse();
    assertThat(added.get(0).ordered).isFalse();
    assertThat(added.get(3).ordered).isTrue();
  }

  @Test
  void aRemovedRecordLeavesItsNeighboursLinkedWhereverItWas() {
    CompletionOrder order = new CompletionOrder(1);
    MemoryRecord a = record("a");
    MemoryRecord b = record("b");
    MemoryRecord c = record("c");
    MemoryRecord d = record("d");
    MemoryRecord e = record("e");
    for (MemoryRecord r : List.of(a, b, c, d, e)) {
      order.add(r);
    }

    order.remove(c); // the middle
    order.remove(a); // the oldest
    order.remove(e); // the newest
    order.remove(c); // not in the order any more: nothing changes

    assertThat(order.size()).isEqualTo(2);
    assertThat(order.pollOverflow()).isSameAs(b);
    assertThat(order.pollOverflow()).as("d alone is the maximum").isNull();
    MemoryRecord f = record("f");
    order.add(f);
    assertThat(order.pollOverflow()).isSameAs(d);
    assertThat(order.pollOverflow()).isNull();
    order.remove(f);
    assertThat(order.size()).isZero();
    assertThat(order.pollOverflow()).isNull();
  }

  @Test
  void clearUnlinksEveryRecordAndTheOrderStartsAgain() {
    CompletionOrder order = new CompletionOrder(2);
    MemoryRecord a = record("a");
    MemoryRecord b = record("b");
    MemoryRecord c = record("c");
    order.add(a);
    order.add(b);
    order.add(c);

    order.clear();

    assertThat(order.size()).isZero();
    assertThat(List.of(a, b, c)).allSatisfy(r -> assertThat(r.ordered).isFalse());
    assertThat(a.newer).isNull();
    assertThat(c.older).isNull();
    order.remove(b);
    assertThat(order.size()).as("removing a cleared record").isZero();
    order.add(c);
    order.add(a);
    order.add(b);
    assertThat(order.pollOverflow()).isSameAs(c);
  }

  @Test
  void aMaximumThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> new CompletionOrder(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumSize must be positive, was 0");
  }

  static MemoryRecord record(String key) {
    return MemoryRecord.claim(RecordKey.of("order", key), "o", null, 1_000)
        .completedWith(new byte[] {1}, 2_000);
  }
}
