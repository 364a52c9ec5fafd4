package dev.idempotent.redisson;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the tests find Redis: {@code IDEMPOTENT_REDIS_URL}, else a Testcontainers Redis when a Docker engine is
 * available, else the test fails (when {@code CI=true}) or is skipped, naming the variable. Tests that run their
 * own {@code redis-server} processes find the binary on the {@code PATH} with the same rule.
 */
final class RedisTestEnvironment {
  static final String URL_VARIABLE = "IDEMPOTENT_REDIS_URL";

  private static GenericContainer<?> container;

  private RedisTestEnvironment() {}

  /** The {@code redis://host:port} of a standalone Redis shared by the tests. */
  static synchronized String standaloneUrl() {
    String url = System.getenv(URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      return url.trim();
    }
    if (container == null && dockerAvailable()) {
      GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7.2-alpine"))
          .withExposedPorts(6379);
      redis.start();
      container = redis;
    }
    if (container != null) {
      return "redis://" + container.getHost() + ":" + container.getMappedPort(6379);
    }
    unavailable(URL_VARIABLE + " is not set and no Docker engine is available: set " + URL_VARIABLE
        + "=redis://127.0.0.1:6379 to run the Redis store tests");
    return null;
  }

  /** The {@code redis-server} binary, for tests that start their own servers. */
  static Path redisServer() {
    return binary("redis-server");
  }

  /** The {@code redis-cli} binary. */
  static Path redisCli() {
    return binary("redis-cli");
  }

  private static Path binary(String name) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    Path usual = Path.of("/usr/bin", name);
    if (Files.isExecutable(usual)) {
      return usual;
    }
    unavailable(name + " is not installed (not on the PATH): install Redis (for example apt-get install "
        + "redis-server) to run the tests that start their own Redis servers");
    return null;
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  /** Fails under {@code CI=true}, else skips the test, with {@code message}. */
  static void unavailable(String message) {
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(message);
    }
    assumeTrue(false, message);
  }
}
