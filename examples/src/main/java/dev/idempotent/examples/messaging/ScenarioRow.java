package dev.idempotent.examples.messaging;

import java.util.List;

/**
 * One scenario of a messaging example: how many times the consumer got the message, how many times
 * the order was placed, how many deliveries were answered with the recorded outcome instead.
 */
public record ScenarioRow(String scenario, long deliveries, long executions, long replays) {

  /** Prints the rows as a table, then whether every scenario placed its order exactly once. */
  static boolean print(List<ScenarioRow> rows) {
    String fmt = "%-44s %11s %11s %8s%n";
    System.out.printf(fmt, "scenario", "deliveries", "executions", "replays");
    System.out.printf(fmt, "-".repeat(44), "-".repeat(11), "-".repeat(11), "-".repeat(8));
    for (ScenarioRow r : rows) {
      System.out.printf(fmt, r.scenario(), r.deliveries(), r.executions(), r.replays());
    }
    boolean once = rows.stream().allMatch(r -> r.executions() == 1);
    System.out.println(
        once ? "OK: exactly one execution per key." : "FAILED: some key ran more than once.");
    return once;
  }
}
