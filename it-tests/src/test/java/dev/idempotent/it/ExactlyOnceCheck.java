package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The invariant every test checks, from what the callers got and what the backend's ledger counted.
 *
 * <ul>
 *   <li>The ledger holds exactly as many executions per key as callers reported running the body:
 *       no execution is hidden, none is lost.
 *   <li>Every key ran; every replay of a key returned the same result, byte for byte, as one
 *       execution of it.
 *   <li>Strict (no faults): exactly one execution per key, and its completion was recorded. With
 *       faults: every execution beyond the first follows an execution whose completion was lost
 *       (fenced or failed) - the documented at-least-once case - and nothing else.
 *   <li>No caller got anything but a result, an in-progress or duplicate rejection, or (only where
 *       the test allows it) a fail-closed store error.
 * </ul>
 */
final class ExactlyOnceCheck {
  private ExactlyOnceCheck() {}

  /** What a run did, for the summary line. */
  record Summary(
      String label,
      int keys,
      int calls,
      long executions,
      long replays,
      long rejections,
      long storeErrors,
      long lostCompletions,
      long p50Micros,
      long p99Micros) {
    @Override
    public String toString() {
      return String.format(
          "%s: %d keys, %d calls, %d executions, %d replays, %d rejections (in progress/duplicate),"
              + " %d store errors, %d lost completions, latency p50 %.1f ms p99 %.1f ms",
          label,
          keys,
          calls,
          executions,
          replays,
          rejections,
          storeErrors,
          lostCompletions,
          p50Micros / 1000.0,
          p99Micros / 1000.0);
    }
  }

  static Summary verify(
      String label,
      Collection<String> keys,
      List<CallOutcome> outcomes,
      Map<String, Long> ledger,
      boolean strict,
      boolean storeErrorsAllowed) {
    assertThat(
            outcomes.stream()
                .filter(o -> o.kind() == CallOutcome.Kind.OTHER)
                .map(CallOutcome::toLine)
                .limit(5))
        .as("%s: calls that got anything but a result or a rejection", label)
        .isEmpty();
    if (!storeErrorsAllowed) {
      assertThat(
              outcomes.stream()
                  .filter(o -> o.kind() == CallOutcome.Kind.STORE_ERROR)
                  .map(CallOutcome::toLine)
                  .limit(5))
          .as("%s: store errors", label)
          .isEmpty();
    }
    Map<String, List<CallOutcome>> byKey =
        outcomes.stream().collect(Collectors.groupingBy(CallOutcome::key));
    assertThat(byKey.keySet()).as("%s: keys the callers reported", label).isSubsetOf(keys);
    List<String> problems = new ArrayList<>();
    long lost = 0;
    for (String key : keys) {
      List<CallOutcome> calls = byKey.getOrDefault(key, List.of());
      List<CallOutcome> executed =
          calls.stream().filter(o -> o.kind() == CallOutcome.Kind.EXECUTED).toList();
      long completionsLost = executed.stream().filter(o -> !o.detail().equals("recorded")).count();
      lost += completionsLost;
      long inLedger = ledger.getOrDefault(key, 0L);
      if (inLedger != executed.size()) {
        problems.add(
            key
                + ": ledger holds "
                + inLedger
                + " executions, callers ran the body "
                + executed.size()
                + " times");
      }
      if (executed.isEmpty()) {
        problems.add(key + ": never executed");
        continue;
      }
      if (strict && (executed.size() != 1 || completionsLost != 0)) {
        problems.add(
            key
                + ": "
                + executed.size()
                + " executions ("
                + completionsLost
                + " with a lost completion)");
      }
      if (!strict && executed.size() - 1 > completionsLost) {
        problems.add(
            key
                + ": "
                + executed.size()
                + " executions but only "
                + completionsLost
                + " lost completions to explain the extra ones");
      }
      List<String> replayed =
          calls.stream()
              .filter(o -> o.kind() == CallOutcome.Kind.REPLAYED)
              .map(CallOutcome::digest)
              .distinct()
              .toList();
      List<String> executedDigests = executed.stream().map(CallOutcome::digest).toList();
      if (replayed.size() > 1
          || (replayed.size() == 1 && !executedDigests.contains(replayed.get(0)))) {
        problems.add(
            key + ": replays returned " + replayed + ", executions returned " + executedDigests);
      }
    }
    assertThat(problems).as("%s: keys that broke the invariant (first 20)", label).isEmpty();

    long[] latencies = outcomes.stream().mapToLong(CallOutcome::micros).sorted().toArray();
    Map<CallOutcome.Kind, Long> kinds = new HashMap<>();
    outcomes.forEach(o -> kinds.merge(o.kind(), 1L, Long::sum));
    Summary summary =
        new Summary(
            label,
            keys.size(),
            outcomes.size(),
            kinds.getOrDefault(CallOutcome.Kind.EXECUTED, 0L),
            kinds.getOrDefault(CallOutcome.Kind.REPLAYED, 0L),
            kinds.getOrDefault(CallOutcome.Kind.IN_PROGRESS, 0L)
                + kinds.getOrDefault(CallOutcome.Kind.DUPLICATE, 0L),
            kinds.getOrDefault(CallOutcome.Kind.STORE_ERROR, 0L),
            lost,
            percentile(latencies, 50),
            percentile(latencies, 99));
    System.out.println("[it-tests] " + summary);
    return summary;
  }

  private static long percentile(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }
}
