package dev.idempotent.spring.it;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Where the tests find their services, in this order: {@code IDEMPOTENT_POSTGRES_URL}, {@code
 * IDEMPOTENT_REDIS_URL}, {@code IDEMPOTENT_DYNAMODB_URL} (dynalite) and {@code
 * IDEMPOTENT_JETSTREAM_URL} when set; else the local server on its standard port when it answers a
 * TCP connect within 200 ms; else the test fails on CI ({@code CI=true}) and is skipped elsewhere,
 * saying so on the console with the variable to set. Shared by the servlet and WebFlux suites.
 */
public final class TestServices {
  static final String POSTGRES_VARIABLE = "IDEMPOTENT_POSTGRES_URL";
  static final String REDIS_VARIABLE = "IDEMPOTENT_REDIS_URL";

  private TestServices() {}

  public static String postgres() {
    return require(POSTGRES_VARIABLE, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres", 5432);
  }

  /** The host of a RabbitMQ broker on port 5672 with guest/guest. */
  public static String rabbitHost() {
    require("IDEMPOTENT_RABBIT_URL", "amqp://guest:guest@127.0.0.1:5672", 5672);
    return "127.0.0.1";
  }

  public static String redis() {
    return require(REDIS_VARIABLE, "redis://127.0.0.1:6379", 6379);
  }

  /** The endpoint of a local DynamoDB (dynalite): {@code http://host:port}. */
  public static String dynamoDb() {
    return require("IDEMPOTENT_DYNAMODB_URL", "http://127.0.0.1:4567", 4567);
  }

  /** A NATS server with JetStream: {@code nats://host:port}. */
  public static String nats() {
    return require("IDEMPOTENT_JETSTREAM_URL", "nats://127.0.0.1:4222", 4222);
  }

  private static String require(String variable, String localUrl, int localPort) {
    String url = System.getenv(variable);
    if (url != null && !url.isBlank()) {
      return url.trim();
    }
    if (answers(localPort)) {
      return localUrl;
    }
    String why =
        variable
            + " is not set and nothing answers on 127.0.0.1:"
            + localPort
            + "; set it, for example "
            + variable
            + "="
            + localUrl;
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(why + " (CI=true: these tests must not be skipped)");
    }
    System.out.println("SKIPPED " + callerTest() + ": " + why);
    assumeTrue(false, "skipped: " + why);
    throw new AssertionError("unreachable");
  }

  private static boolean answers(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String callerTest() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames
                    .map(StackWalker.StackFrame::getClassName)
                    .filter(name -> !name.equals(TestServices.class.getName()))
                    .findFirst()
                    .orElse("a test"))
        .replaceAll(".*\\.", "");
  }
}
