package dev.idempotent.jdbc.internal;

import static dev.idempotent.jdbc.JdbcStoreSettings.PASSWORD;
import static dev.idempotent.jdbc.JdbcStoreSettings.POOL_SIZE;
import static dev.idempotent.jdbc.JdbcStoreSettings.URL;
import static dev.idempotent.jdbc.JdbcStoreSettings.USERNAME;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.jdbc.JdbcStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.util.List;
import javax.sql.DataSource;

/**
 * {@code idempotent.store=jdbc}: a {@link JdbcIdempotencyStore} on its own HikariCP pool, from the
 * settings of {@link JdbcStoreSettings} ({@code idempotent.jdbc.url} required).
 */
public final class JdbcStoreProvider implements IdempotencyStoreProvider {
  private static final String HIKARI_CLASS = "com.zaxxer.hikari.HikariDataSource";

  @Override
  public String name() {
    return "jdbc";
  }

  @Override
  public List<Setting<?>> settings() {
    return JdbcStoreSettings.ALL;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    JdbcStoreSettings.ALL.forEach(settings::value); // each checked before a pool is opened
    String url = settings.value(URL);
    if (url == null) {
      throw new IllegalArgumentException(
          "missing setting "
              + URL.name()
              + ": set it to the JDBC URL of the store's database in idempotent.properties or as -D"
              + URL.name()
              + "=...");
    }
    String username = settings.value(USERNAME);
    String password = settings.value(PASSWORD);
    if (!hikariPresent()) {
      throw new IdempotencyConfigurationException(
          "idempotent.store=jdbc pools its connections with HikariCP: add the dependency"
              + " com.zaxxer:HikariCP, or build JdbcIdempotencyStore yourself on your own"
              + " DataSource");
    }
    DataSource pool = openPool(url, username, password, settings.value(POOL_SIZE));
    try {
      return JdbcStoreSettings.builder(pool, settings).closing((AutoCloseable) pool).build();
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
