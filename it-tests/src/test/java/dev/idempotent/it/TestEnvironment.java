package dev.idempotent.it;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the tests find their services: {@code IDEMPOTENT_REDIS_URL}, {@code IDEMPOTENT_POSTGRES_URL},
 * {@code IDEMPOTENT_MARIADB_URL}; when one is unset, a Testcontainers container if a Docker engine is available,
 * else the test fails (under {@code CI=true}) or is skipped, naming the variable. Test-owned Redis servers need
 * {@code redis-server} and {@code redis-cli}, with the same rule.
 */
final class TestEnvironment {
  static final String REDIS = "IDEMPOTENT_REDIS_URL";
  static final String POSTGRES = "IDEMPOTENT_POSTGRES_URL";
  static final String MARIADB = "IDEMPOTENT_MARIADB_URL";

  private static final Map<String, GenericContainer<?>> containers = new HashMap<>();

  private TestEnvironment() {}

  static synchronized String redisUrl() {
    String url = variable(REDIS);
    if (url != null) {
      return url;
    }
    GenericContainer<?> c = container(REDIS, () -> new GenericContainer<>(DockerImageName.parse("redis:7.2-alpine"))
        .withExposedPorts(6379));
    return "redis://" + c.getHost() + ":" + c.getMappedPort(6379);
  }

  static synchronized String postgresUrl() {
    String url = variable(POSTGRES);
    if (url != null) {
      return url;
    }
    GenericContainer<?> c = container(POSTGRES, () -> new GenericContainer<>(DockerImageName.parse("postgres:16-alpine"))
        .withEnv("POSTGRES_HOST_AUTH_METHOD", "trust").withEnv("POSTGRES_DB", "test").withExposedPorts(5432)
        .waitingFor(Wait.forLogMessage(".*ready to accept connections.*\\n", 2)));
    return "jdbc:postgresql://" + c.getHost() + ":" + c.getMappedPort(5432) + "/test?user=postgres";
  }

  static synchronized String mariadbUrl() {
    String url = variable(MARIADB);
    if (url != null) {
      return url;
    }
    GenericContainer<?> c = container(MARIADB, () -> new GenericContainer<>(DockerImageName.parse("mariadb:11"))
        .withEnv("MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1").withEnv("MARIADB_DATABASE", "test").withExposedPorts(3306)
        .waitingFor(Wait.forLogMessage(".*ready for connections.*\\n", 2)).withStartupTimeout(Duration.ofMinutes(2)));
    return "jdbc:mariadb://" + c.getHost() + ":" + c.getMappedPort(3306) + "/test?user=root";
  }

  private static String variable(String name) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static GenericContainer<?> container(String variable,
      java.util.function.Supplier<GenericContainer<?>> create) {
    GenericContainer<?> c = containers.get(variable);
    if (c == null) {
      if (!dockerAvailable()) {
        unavailable(variable + " is not set and no Docker engine is available: set " + variable
            + " (see the it-tests README section) to run this test");
      }
      c = create.get();
      c.start();
      containers.put(variable, c);
    }
    return c;
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
