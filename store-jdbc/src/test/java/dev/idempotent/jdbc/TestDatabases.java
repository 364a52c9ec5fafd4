package dev.idempotent.jdbc;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The databases the tests run on. H2 is in memory and always there; PostgreSQL and MariaDB come from
 * {@code IDEMPOTENT_POSTGRES_URL} / {@code IDEMPOTENT_MARIADB_URL}. When a variable is unset the test fails
 * on CI ({@code CI=true}) and is skipped elsewhere, naming the variable.
 */
final class TestDatabases {
  static final String POSTGRES_VARIABLE = "IDEMPOTENT_POSTGRES_URL";
  static final String MARIADB_VARIABLE = "IDEMPOTENT_MARIADB_URL";

  private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();

  private TestDatabases() {}

  /** A pooled in-memory H2 database that lives as long as the JVM. */
  static HikariDataSource h2(String name) {
    return pool("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", 10);
  }

  static HikariDataSource postgres() {
    return pool(requireUrl(POSTGRES_VARIABLE, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"), 10);
  }

  static HikariDataSource mariadb() {
    return pool(requireUrl(MARIADB_VARIABLE, "jdbc:mariadb://127.0.0.1:3306/test?user=root"), 10);
  }

  static String requireUrl(String variable, String example) {
    String url = System.getenv(variable);
    if (url != null && !url.isBlank()) {
      return url.trim();
    }
    String why = variable + " is not set and this build has no Testcontainers module; set it, for example "
        + variable + "=" + example;
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(why + " (CI=true: database tests must not be skipped)");
    }
    assumeTrue(false, "skipped: " + why);
    throw new AssertionError("unreachable");
  }

  static HikariDataSource pool(String url, int size) {
    return POOLS.computeIfAbsent(url + "#" + size, k -> {
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
