package dev.idempotent.examples.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the WebFlux example as {@code main} and reads its table back: each scenario's real count of
 * executions and replays, and the HTTP statuses the client got.
 */
class ReactiveOrderDemoTest {
  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  @Test
  void everyScenarioRunsItsKeyOnceAndTheRepeatsGetTheRecordedOutcome() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream before = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      ReactiveOrderDemo.main(new String[0]);
    } finally {
      System.setOut(before);
    }
    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (String line : lines.subList(2, lines.size() - 1)) {
      // scenario, requests, executions, replays, statuses: columns apart by two spaces or more
      List<String> cells = List.of(line.strip().split("\\s{2,}"));
      rows.put(cells.get(0), cells.subList(1, cells.size()));
    }
    assertThat(rows)
        .containsExactly(
            Map.entry("double submit, one Idempotency-Key", List.of("2", "1", "1", "2 x 201")),
            Map.entry("a retry()ing subscriber, 2 failures", List.of("3", "1", "2", "-")),
            Map.entry(
                "the key again with another order", List.of("2", "1", "0", "1 x 201, 1 x 422")),
            Map.entry("20 concurrent requests, one key", List.of("20", "1", "19", "20 x 201")),
            Map.entry("a Flux of 3 labels, subscribed twice", List.of("2", "1", "1", "-")));
    assertThat(lines.get(lines.size() - 1)).isEqualTo("OK: exactly one execution per key.");
  }

  @Test
  void theRowsCountWhatReallyHappened() throws Exception {
    List<ReactiveOrderDemo.Row> rows = ReactiveOrderDemo.run();
    assertThat(rows).extracting(ReactiveOrderDemo.Row::executions).containsOnly(1L);
    assertThat(rows.get(0).statuses()).containsExactly(201, 201);
    assertThat(rows.get(2).statuses()).containsExactly(201, 422);
    assertThat(rows.get(3).statuses()).hasSize(20).containsOnly(201);
    assertThat(rows)
        .extracting(ReactiveOrderDemo.Row::replays)
        .containsExactly(1L, 2L, 0L, 19L, 1L);
  }
}
