package dev.idempotent.redisson;

import dev.idempotent.tck.TestBackends;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the tests find Redis: {@code IDEMPOTENT_REDIS_URL}, else the local server on 127.0.0.1:6379
 * when it answers, else a Testcontainers Redis when a Docker engine is available, else the test
 * fails (when {@code CI=true}) or is skipped with a {@code SKIPPED} console line naming the
 * variable (see {@link TestBackends}). Tests that run their own {@code redis-server} processes find
 * the binary on the {@code PATH} with the same rule.
 */
final class RedisTestEnvironment {
  static final String URL_VARIABLE = "IDEMPOTENT_REDIS_URL";
  private static final String LOCAL_URL = "redis://127.0.0.1:6379";

  private static GenericContainer<?> container;

  private RedisTestEnvironment() {}

  /** The {@code redis://host:port} of a standalone Redis shared by the tests. */
  static synchronized String standaloneUrl() {
    Optional<String> url = TestBackends.configuredOrLocal(URL_VARIABLE, LOCAL_URL, 6379);
    if (url.isPresent()) {
      return url.get();
    }
    if (container == null && TestBackends.dockerAvailable()) {
      GenericContainer<?> redis =
          new GenericContainer<>(DockerImageName.parse("redis:7.2-alpine")).withExposedPorts(6379);
      redis.start();
      container = redis;
    }
    if (container != null) {
      return "redis://" + container.getHost() + ":" + container.getMappedPort(6379);
    }
    TestBackends.missing(URL_VARIABLE, LOCAL_URL, 6379);
    return null;
  }

  /**
   * A client of the shared standalone Redis keeping {@code minimumIdle} connections open, with
   * Redisson's default pool size when {@code poolSize} is 0.
   */
  static RedissonClient client(int minimumIdle, int poolSize) {
    Config config = new Config();
    SingleServerConfig server =
        config
            .useSingleServer()
            .setAddress(standaloneUrl())
            .setConnectionMinimumIdleSize(minimumIdle);
    if (poolSize > 0) {
      server.setConnectionPoolSize(poolSize);
    }
    return Redisson.create(config);
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
    TestBackends.unavailable(
        name + " is not installed (not on the PATH)",
        "install Redis (for example "
            + "apt-get install redis-server) to run the tests that start their own Redis servers");
    return null;
  }
}
