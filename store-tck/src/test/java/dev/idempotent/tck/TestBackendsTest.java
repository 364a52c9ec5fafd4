package dev.idempotent.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class TestBackendsTest {

  @Test
  void aSetVariableWins() {
    assertThat(
            TestBackends.configuredOrLocal(
                Map.of("V", " redis://elsewhere:1 "), "V", "redis://127.0.0.1:1", 1))
        .contains("redis://elsewhere:1");
  }

  @Test
  void anUnsetVariableFallsBackToTheLocalServerWhenItAnswers() throws Exception {
    try (ServerSocket local = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = local.getLocalPort();
      String url = "redis://127.0.0.1:" + port;
      assertThat(TestBackends.configuredOrLocal(Map.of(), "V", url, port)).contains(url);
      assertThat(TestBackends.configuredOrLocal(Map.of("V", " "), "V", url, port)).contains(url);
    }
  }

  @Test
  void nothingWhenTheVariableIsUnsetAndNothingAnswers() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    assertThat(TestBackends.configuredOrLocal(Map.of(), "V", "redis://127.0.0.1:" + port, port))
        .isEmpty();
  }

  @Test
  void aSkipNamesTheSuiteOnTheConsoleOnce() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream console = new PrintStream(out, true, StandardCharsets.UTF_8);
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () -> TestBackends.unavailable(Map.of(), console, "V is not set", "set V=x"))
          .isInstanceOf(TestAbortedException.class)
          .hasMessageContaining("V is not set; set V=x");
    }
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("SKIPPED TestBackendsTest: V is not set; set V=x" + System.lineSeparator());
  }

  @Test
  void underCiAMissingServiceFails() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream console = new PrintStream(out, true, StandardCharsets.UTF_8);
    assertThatThrownBy(
            () ->
                TestBackends.unavailable(Map.of("CI", "true"), console, "V is not set", "set V=x"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("V is not set; set V=x")
        .hasMessageContaining("CI=true");
    assertThat(out.size()).isZero();
  }
}
