package dev.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.tck.TestBackends;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link MessagingCostRun}: the messages it publishes, its options, and a short run on both brokers
 * (RabbitMQ at {@code IDEMPOTENT_RABBIT_URL} or 127.0.0.1:5672, Kafka in this JVM, Redis at {@code
 * IDEMPOTENT_REDIS_URL} or 127.0.0.1:6379) in which every measurement passes the run's own count
 * checks and the report has every row. What it measures is not asserted.
 */
class MessagingCostRunTest {
  @Test
  void theDuplicatesRepeatKeysPublishedHalfTheRunEarlierAtTheGivenShare() {
    List<String> keys = MessagingCostRun.keys("t", 1_000, 0.1);
    Map<String, Integer> firstPosition = new HashMap<>();
    int duplicates = 0;
    for (int i = 0; i < keys.size(); i++) {
      Integer first = firstPosition.putIfAbsent(keys.get(i), i);
      if (first != null) {
        duplicates++;
        assertThat(i - first).as("distance of duplicate at %d", i).isGreaterThanOrEqualTo(500);
      }
    }
    assertThat(firstPosition).hasSize(1_000);
    assertThat(duplicates).isEqualTo(100);
    assertThat(keys).hasSize(1_100);
    assertThat(MessagingCostRun.keys("t", 1_000, 0)).hasSize(1_000);
  }

  @Test
  void unknownOptionsAndBadValuesAreRefusedSayingWhatToUse() {
    assertThatThrownBy(() -> MessagingCostRun.main(new String[] {"--fast"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--fast")
        .hasMessageContaining("--brokers rabbitmq,kafka");
    assertThatThrownBy(() -> MessagingCostRun.main(new String[] {"--duplicates", "0.9"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("from 0 to 0.5");
    assertThatThrownBy(() -> MessagingCostRun.main(new String[] {"--brokers", "pulsar"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use rabbitmq or kafka");
    assertThatThrownBy(() -> MessagingCostRun.main(new String[] {"--rounds", "x"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--rounds needs a whole number");
  }

  @Test
  void aShortRunOnBothBrokersPassesItsCountChecksAndReportsEveryRow() throws Exception {
    require(BenchmarkSettings.REDIS_URL_VARIABLE, "redis://127.0.0.1:6379", 6379);
    require(MessagingCostRun.RABBIT_URL_VARIABLE, "amqp://guest:guest@127.0.0.1:5672", 5672);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      MessagingCostRun.main(
          new String[] {
            "--messages", "300", "--warmup", "100", "--rounds", "2", "--consumers", "2"
          });
    } finally {
      System.setOut(out);
    }
    String report = printed.toString(StandardCharsets.UTF_8);
    out.print(report);
    Set<String> brokers = new HashSet<>(List.of("RabbitMQ", "Kafka"));
    for (String broker : brokers) {
      for (String side :
          new String[] {"unprotected", "library, Redis store", "hand-written Redis de-dup"}) {
        assertThat(report).containsPattern("\\| " + broker + " \\| " + side + " \\| [0-9,]+ \\(");
      }
      assertThat(report)
          .containsPattern(
              "\\| " + broker + " \\| [0-9.]+x \\([0-9.]+–[0-9.]+\\) \\|.*\\| (PASS|MISS) \\|");
    }
  }

  private static void require(String variable, String localUrl, int port) {
    if (TestBackends.configuredOrLocal(variable, localUrl, port).isEmpty()) {
      TestBackends.missing(variable, localUrl, port);
    }
  }
}
