package dev.idempotent.jdbc.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Locale;

/**
 * Opens the HikariCP pool of an auto-configured store. Loaded only when HikariCP is on the
 * classpath.
 */
final class HikariPools {
  static final long CONNECTION_TIMEOUT_MS = 3_000;

  private HikariPools() {}

  static HikariDataSource open(String url, String username, String password, int poolSize) {
    return new HikariDataSource(config(url, username, password, poolSize));
  }

  /**
   * The pool's settings. The pool serves the store alone, so on MySQL and MariaDB its connections
   * count affected rows ({@code useAffectedRows=true}, unless the URL says otherwise): a fresh-key
   * claim that finds the key taken then reports 0 rows, an answer that holds even where the claim's
   * {@code LAST_INSERT_ID} code is lost.
   */
  static HikariConfig config(String url, String username, String password, int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("idempotent-jdbc");
    config.setJdbcUrl(url);
    if (username != null) {
      config.setUsername(username);
    }
    if (password != null) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(Math.min(poolSize, 2));
    config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
    config.setValidationTimeout(Math.min(CONNECTION_TIMEOUT_MS - 500, 2_000));
    config.setInitializationFailTimeout(
        1); // try once at start and fail at once when the database is unreachable
    String lower = url.toLowerCase(Locale.ROOT);
    if (lower.startsWith("jdbc:postgresql:") && !lower.contains("connecttimeout=")) {
      config.addDataSourceProperty("connectTimeout", "3");
    }
    if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
      if (!lower.contains("connecttimeout=")) {
        config.addDataSourceProperty("connectTimeout", "3000");
      }
      if (!lower.contains("useaffectedrows=")) {
        config.addDataSourceProperty("useAffectedRows", "true");
      }
    }
    return config;
  }
}
