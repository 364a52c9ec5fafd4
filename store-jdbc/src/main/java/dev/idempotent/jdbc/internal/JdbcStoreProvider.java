package dev.idempotent.jdbc.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code idempotent.store=jdbc}: a {@link JdbcIdempotencyStore} on its own HikariCP pool.
 *
 * <ul>
 *   <li>{@code idempotent.jdbc.url} (required), {@code .username}, {@code .password}
 *   <li>{@code idempotent.jdbc.table} (default {@code idempotency_record}), {@code .create-table}
 *       ({@code false})
 *   <li>{@code idempotent.jdbc.pool-size} (10), {@code .query-timeout} (5s), {@code .purge-every}
 *       (off; purges 1000 rows per statement)
 * </ul>
 */
public final class JdbcStoreProvider implements IdempotencyStoreProvider {
  static final String PREFIX = "idempotent.jdbc.";
  private static final String HIKARI_CLASS = "com.zaxxer.hikari.HikariDataSource";

  @Override
  public String name() {
    return "jdbc";
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    String url = settings.require(PREFIX + "url");
    String username = settings.get(PREFIX + "username").orElse(null);
    String password = settings.get(PREFIX + "password").orElse(null);
    String table = settings.get(PREFIX + "table").orElse(JdbcIdempotencyStore.DEFAULT_TABLE);
    boolean createTable = bool(settings, PREFIX + "create-table");
    int poolSize = poolSize(settings.get(PREFIX + "pool-size"));
    Optional<Duration> queryTimeout = settings.duration(PREFIX + "query-timeout");
    Optional<Duration> purgeEvery = settings.duration(PREFIX + "purge-every");
    if (!url.startsWith("jdbc:")) {
      throw new IllegalArgumentException(
          "setting "
              + PREFIX
              + "url must be a JDBC URL such as"
              + " jdbc:postgresql://host:5432/db; was "
              + JdbcUrls.withoutPassword(url));
    }
    if (!hikariPresent()) {
      throw new IdempotencyConfigurationException(
          "idempotent.store=jdbc pools its connections with HikariCP: add the dependency"
              + " com.zaxxer:HikariCP, or build JdbcIdempotencyStore yourself on your own"
              + " DataSource");
    }
    DataSource pool = openPool(url, username, password, poolSize);
    try {
      JdbcIdempotencyStore.Builder builder =
          JdbcIdempotencyStore.builder(pool)
              .table(table)
              .createTable(createTable)
              .closing((AutoCloseable) pool);
      queryTimeout.ifPresent(builder::queryTimeout);
      purgeEvery.ifPresent(interval -> builder.purgeEvery(interval, 1000));
      return builder.build();
    } catch (IllegalStateException e) { // a database that is not one of the supported dialects
      closeQuietly(pool);
      throw new IdempotencyConfigurationException(e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(pool);
      throw e;
    }
  }

  private static DataSource openPool(String url, String username, String password, int poolSize) {
    try {
      return HikariPools.open(url, username, password, poolSize);
    } catch (RuntimeException e) {
      StringBuilder why = new StringBuilder();
      boolean leaks = false;
      for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
        String m = t.getMessage();
        if (m != null && password != null && !password.isEmpty() && m.contains(password)) {
          leaks = true;
        }
        if (m != null && why.indexOf(m) < 0) {
          why.append(why.length() == 0 ? "" : "; ").append(JdbcUrls.mask(m, password));
        }
      }
      String message =
          "cannot connect the jdbc idempotency store to "
              + JdbcUrls.withoutPassword(url)
              + (username == null ? "" : " as " + username)
              + " within "
              + HikariPools.CONNECTION_TIMEOUT_MS
              + " ms: "
              + why;
      throw new IllegalStateException(message, leaks ? null : e);
    }
  }

  private static boolean bool(StoreSettings settings, String name) {
    return settings
        .get(name)
        .map(
            v ->
                switch (v.toLowerCase(Locale.ROOT)) {
                  case "true" -> true;
                  case "false" -> false;
                  default ->
                      throw new IllegalArgumentException(
                          "setting " + name + " must be true or false, was " + v);
                })
        .orElse(false);
  }

  private static int poolSize(Optional<String> value) {
    if (value.isEmpty()) {
      return 10;
    }
    try {
      int n = Integer.parseInt(value.get());
      if (n >= 1 && n <= 1000) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(
        "setting "
            + PREFIX
            + "pool-size must be a whole number from 1 to 1000, was "
            + value.get());
  }

  private static boolean hikariPresent() {
    try {
      Class.forName(HIKARI_CLASS, false, JdbcStoreProvider.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static void closeQuietly(DataSource pool) {
    try {
      ((AutoCloseable) pool).close();
    } catch (Exception ignored) {
      // the build failure is what the caller needs to see
    }
  }
}
