package dev.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A short run of {@link HttpCostRun} on the memory store: the embedded server starts, both filters
 * pass the harness's own checks (a first request runs, its repeat is replayed, a reused key with
 * another body gets 422), every answer of the load is as expected, and the report has a row for
 * every cell. What it measures is not asserted.
 */
class HttpCostRunTest {
  @Test
  void aShortRunOnTheMemoryStoreChecksEveryAnswerAndReportsEveryCell() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      HttpCostRun.main(
          new String[] {
            "--stores", "memory",
            "--connections", "1,2",
            "--first-warmup", "0.2",
            "--warmup", "0.1",
            "--measure", "0.3",
            "--rounds", "2"
          });
    } finally {
      System.setOut(out);
    }
    String report = printed.toString(StandardCharsets.UTF_8);
    out.print(report);
    for (String keys : new String[] {"fresh", "replay"}) {
      for (String connections : new String[] {"1", "2"}) {
        String cell = "| memory | " + keys + " | " + connections + " | ";
        for (String variant :
            new String[] {"unprotected", "IdempotencyFilter", "hand-written filter"}) {
          assertThat(report).contains(cell + variant + " | ");
        }
        assertThat(report)
            .containsPattern(
                "\\Q"
                    + cell
                    + "\\E[0-9.]+x \\([0-9.]+–[0-9.]+\\) \\|.*\\| (PASS|MISS) \\| (PASS|MISS) \\|");
      }
    }
  }

  @Test
  void anUnknownOptionIsRefusedNamingTheOptions() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> HttpCostRun.main(new String[] {"--fast"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--fast")
        .hasMessageContaining("--stores memory,redis");
  }
}
