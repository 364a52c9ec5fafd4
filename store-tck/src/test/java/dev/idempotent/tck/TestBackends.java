package dev.idempotent.tck;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How this repository's test suites find a backing service (Redis, PostgreSQL, MariaDB), in this
 * order: the environment variable; else the local default URL when a TCP connect to {@code
 * 127.0.0.1:<port>} answers within {@value #CONNECT_TIMEOUT_MILLIS} ms; else a Testcontainers
 * container when a Docker engine answers (the caller starts it); else, under {@code CI=true}, a
 * failure, and elsewhere a skip that is announced on the console as {@code SKIPPED <suite>: <why>;
 * <what to do>} (surefire's reports alone are easy to miss). Shared with the other modules' tests
 * through this module's test jar.
 */
public final class TestBackends {
  static final int CONNECT_TIMEOUT_MILLIS = 200;

  /** The skip lines already printed, so that a suite whose every test skips says so once. */
  private static final Set<String> ANNOUNCED = ConcurrentHashMap.newKeySet();

  private TestBackends() {}

  /**
   * The value of {@code variable}, trimmed, if set and not blank; else {@code localUrl} if
   * something answers on {@code 127.0.0.1:localPort}; else empty.
   */
  public static Optional<String> configuredOrLocal(
      String variable, String localUrl, int localPort) {
    return configuredOrLocal(System.getenv(), variable, localUrl, localPort);
  }

  static Optional<String> configuredOrLocal(
      Map<String, String> env, String variable, String localUrl, int localPort) {
    String value = env.get(variable);
    if (value != null && !value.isBlank()) {
      return Optional.of(value.trim());
    }
    return answers(localPort) ? Optional.of(localUrl) : Optional.empty();
  }

  /**
   * Whether a TCP connect to {@code 127.0.0.1:port} succeeds within {@value
   * #CONNECT_TIMEOUT_MILLIS} ms.
   */
  static boolean answers(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), port), CONNECT_TIMEOUT_MILLIS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether a Docker engine answers for Testcontainers (false when Testcontainers is not on the
   * class path).
   */
  public static boolean dockerAvailable() {
    try {
      return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  /**
   * Ends the calling test for want of the service behind {@code variable}: fails under {@code
   * CI=true}, else skips it with a console line naming the suite, the variable and an example
   * value.
   */
  public static void missing(String variable, String localUrl, int localPort) {
    unavailable(
        variable
            + " is not set, nothing answers on 127.0.0.1:"
            + localPort
            + " and no Docker engine answers for Testcontainers",
        "set " + variable + "=" + localUrl);
  }

  /**
   * Fails under {@code CI=true}, else prints {@code SKIPPED <suite>: <why>; <fix>} once and skips
   * the test.
   */
  public static void unavailable(String why, String fix) {
    unavailable(System.getenv(), System.out, why, fix);
  }

  static void unavailable(Map<String, String> env, PrintStream console, String why, String fix) {
    String message = why + "; " + fix;
    if ("true".equalsIgnoreCase(env.get("CI"))) {
      fail(message + " (CI=true: a missing service fails the build)");
    }
    String line = "SKIPPED " + suite() + ": " + message;
    if (ANNOUNCED.add(line)) {
      console.println(line);
      console.flush();
    }
    assumeTrue(false, message);
  }

  /**
   * The simple name of the outermost project class on the stack: the test class that needs the
   * service.
   */
  private static String suite() {
    String self = TestBackends.class.getName();
    String name =
        StackWalker.getInstance()
            .walk(
                frames ->
                    frames
                        .map(StackWalker.StackFrame::getClassName)
                        .filter(c -> c.startsWith("dev.idempotent.") && !c.equals(self))
                        .reduce((inner, outer) -> outer)
                        .orElse("tests"));
    String simple = name.substring(name.lastIndexOf('.') + 1);
    int nested = simple.indexOf('$');
    return nested < 0 ? simple : simple.substring(0, nested);
  }
}
