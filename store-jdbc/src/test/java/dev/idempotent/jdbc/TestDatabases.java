package dev.idempotent.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.tck.TestBackends;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.containers.MariaDBContainer;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The databases the tests run on. H2 is in memory and always there; PostgreSQL and MariaDB come
 * from {@code IDEMPOTENT_POSTGRES_URL} / {@code IDEMPOTENT_MARIADB_URL}, else from the local server
 * on its standard port (database {@code test}) when it answers, else from Testcontainers ({@code
 * postgres:16}, {@code mariadb:11}) when a Docker engine answers. When none is there the test fails
 * on CI ({@code CI=true}) and is skipped elsewhere with a {@code SKIPPED} line on the console
 * naming the variable (see {@link TestBackends}).
 */
final class TestDatabases {
  static final String POSTGRES_VARIABLE = "IDEMPOTENT_POSTGRES_URL";
  static final String MARIADB_VARIABLE = "IDEMPOTENT_MARIADB_URL";

  private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();

  /** Containers started for this JVM, by variable; stopped by Testcontainers when the JVM exits. */
  private static final Map<String, JdbcDatabaseContainer<?>> CONTAINERS = new ConcurrentHashMap<>();

  private TestDatabases() {}

  /** A pooled in-memory H2 database that lives as long as the JVM. */
  static HikariDataSource h2(String name) {
    return pool("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", 10);
  }

  static HikariDataSource postgres() {
    return pool(
        requireUrl(POSTGRES_VARIABLE, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres", 5432),
        10);
  }

  static HikariDataSource mariadb() {
    return pool(mariadbUrl(""), 10);
  }

  /**
   * The MariaDB test database's URL with one more driver property, or unchanged for an empty one.
   */
  static String mariadbUrl(String property) {
    String url = requireUrl(MARIADB_VARIABLE, "jdbc:mariadb://127.0.0.1:3306/test?user=root", 3306);
    return property.isEmpty() ? url : url + (url.contains("?") ? "&" : "?") + property;
  }

  /**
   * The variable's URL, else {@code localUrl} if the local server answers, else a container (see
   * the class).
   */
  static String requireUrl(String variable, String localUrl, int localPort) {
    Optional<String> url = TestBackends.configuredOrLocal(variable, localUrl, localPort);
    if (url.isPresent()) {
      return url.get();
    }
    if (TestBackends.dockerAvailable()) {
      return containerUrl(variable);
    }
    TestBackends.missing(variable, localUrl, localPort);
    throw new AssertionError("unreachable");
  }

  private static String containerUrl(String variable) {
    JdbcDatabaseContainer<?> db =
        CONTAINERS.computeIfAbsent(
            variable,
            v -> {
              JdbcDatabaseContainer<?> c =
                  POSTGRES_VARIABLE.equals(v)
                      ? new PostgreSQLContainer<>(DockerImageName.parse("postgres:16"))
                      : new MariaDBContainer<>(DockerImageName.parse("mariadb:11"));
              c.start();
              return c;
            });
    String url = db.getJdbcUrl();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + db.getUsername()
        + "&password="
        + db.getPassword();
  }

  static HikariDataSource pool(String url, int size) {
    return POOLS.computeIfAbsent(
        url + "#" + size,
        k -> {
          HikariConfig config = new HikariConfig();
          config.setJdbcUrl(url);
          config.setMaximumPoolSize(size);
          config.setMinimumIdle(1);
          config.setConnectionTimeout(3_000);
          config.setPoolName("test-" + POOLS.size());
          return new HikariDataSource(config);
        });
  }
}
