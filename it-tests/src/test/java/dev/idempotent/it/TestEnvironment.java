package dev.idempotent.it;

import dev.idempotent.tck.TestBackends;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the tests find their services: {@code IDEMPOTENT_REDIS_URL}, {@code
 * IDEMPOTENT_POSTGRES_URL}, {@code IDEMPOTENT_MARIADB_URL}, {@code IDEMPOTENT_DYNAMODB_URL}; when
 * one is unset, the local server on its standard port (database {@code test}) if it answers, else a
 * Testcontainers container if a Docker engine is available, else the test fails (under {@code
 * CI=true}) or is skipped with a {@code SKIPPED} console line naming the variable (see {@link
 * TestBackends}). Test-owned Redis servers need {@code redis-server} and {@code redis-cli}, with
 * the same rule.
 */
final class TestEnvironment {
  static final String REDIS = "IDEMPOTENT_REDIS_URL";
  static final String POSTGRES = "IDEMPOTENT_POSTGRES_URL";
  static final String MARIADB = "IDEMPOTENT_MARIADB_URL";
  static final String DYNAMODB = "IDEMPOTENT_DYNAMODB_URL";

  /** The standard local servers, used when a variable is unset and the server answers. */
  private static final Map<String, String> LOCAL =
      Map.of(
          REDIS, "redis://127.0.0.1:6379",
          POSTGRES, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
          MARIADB, "jdbc:mariadb://127.0.0.1:3306/test?user=root");

  private static final Map<String, GenericContainer<?>> containers = new HashMap<>();

  private TestEnvironment() {}

  static synchronized String redisUrl() {
    Optional<String> url = TestBackends.configuredOrLocal(REDIS, LOCAL.get(REDIS), 6379);
    if (url.isPresent()) {
      return url.get();
    }
    GenericContainer<?> c =
        container(
            REDIS,
            6379,
            () ->
                new GenericContainer<>(DockerImageName.parse("redis:7.2-alpine"))
                    .withExposedPorts(6379));
    return "redis://" + c.getHost() + ":" + c.getMappedPort(6379);
  }

  static synchronized String postgresUrl() {
    Optional<String> url = TestBackends.configuredOrLocal(POSTGRES, LOCAL.get(POSTGRES), 5432);
    if (url.isPresent()) {
      return url.get();
    }
    GenericContainer<?> c =
        container(
            POSTGRES,
            5432,
            () ->
                new GenericContainer<>(DockerImageName.parse("postgres:16-alpine"))
                    .withEnv("POSTGRES_HOST_AUTH_METHOD", "trust")
                    .withEnv("POSTGRES_DB", "test")
                    .withExposedPorts(5432)
                    .waitingFor(Wait.forLogMessage(".*ready to accept connections.*\\n", 2)));
    return "jdbc:postgresql://" + c.getHost() + ":" + c.getMappedPort(5432) + "/test?user=postgres";
  }

  /** A local DynamoDB endpoint (dynalite, started by {@code .ci/run}); no container fallback. */
  static synchronized String dynamoDbUrl() {
    Optional<String> url = TestBackends.configuredOrLocal(DYNAMODB, "http://127.0.0.1:4567", 4567);
    if (url.isEmpty()) {
      TestBackends.missing(DYNAMODB, "http://127.0.0.1:4567", 4567);
    }
    return url.get();
  }

  static synchronized String mariadbUrl() {
    Optional<String> url = TestBackends.configuredOrLocal(MARIADB, LOCAL.get(MARIADB), 3306);
    if (url.isPresent()) {
      return url.get();
    }
    GenericContainer<?> c =
        container(
            MARIADB,
            3306,
            () ->
                new GenericContainer<>(DockerImageName.parse("mariadb:11"))
                    .withEnv("MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1")
                    .withEnv("MARIADB_DATABASE", "test")
                    .withExposedPorts(3306)
                    .waitingFor(Wait.forLogMessage(".*ready for connections.*\\n", 2))
                    .withStartupTimeout(Duration.ofMinutes(2)));
    return "jdbc:mariadb://" + c.getHost() + ":" + c.getMappedPort(3306) + "/test?user=root";
  }

  /**
   * {@code IDEMPOTENT_JETSTREAM_URL}, else the local nats-server with JetStream ({@code .ci/run}).
   */
  static String natsUrl() {
    String local = "nats://127.0.0.1:4222";
    Optional<String> url = TestBackends.configuredOrLocal("IDEMPOTENT_JETSTREAM_URL", local, 4222);
    if (url.isEmpty()) {
      TestBackends.unavailable(
          "IDEMPOTENT_JETSTREAM_URL is not set and nothing answers on 127.0.0.1:4222",
          "start nats-server -a 127.0.0.1 -p 4222 -js or set IDEMPOTENT_JETSTREAM_URL=" + local);
    }
    return url.get();
  }

  private static GenericContainer<?> container(
      String variable, int localPort, java.util.function.Supplier<GenericContainer<?>> create) {
    GenericContainer<?> c = containers.get(variable);
    if (c == null) {
      if (!TestBackends.dockerAvailable()) {
        TestBackends.missing(variable, LOCAL.get(variable), localPort);
      }
      c = create.get();
      c.start();
      containers.put(variable, c);
    }
    return c;
  }
}
