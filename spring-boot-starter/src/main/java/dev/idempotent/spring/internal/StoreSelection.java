package dev.idempotent.spring.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Picks the default store when the application has no {@code IdempotencyStore} bean: {@code
 * idempotent.store} with its own settings; else the application's {@code RedissonClient} (with
 * idempotent-store-redisson); else its {@code DataSource} (with idempotent-store-jdbc), joined to
 * Spring-managed transactions; else the store module found on the classpath, as without Spring (the
 * memory store, typically).
 */
public final class StoreSelection {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");
  private static final String REDISSON_STORE = "dev.idempotent.redisson.RedissonIdempotencyStore";
  private static final String REDISSON_CLIENT = "org.redisson.api.RedissonClient";
  private static final String JDBC_STORE = "dev.idempotent.jdbc.JdbcIdempotencyStore";
  private static final String SPRING_JDBC = "org.springframework.jdbc.datasource.DataSourceUtils";

  private StoreSelection() {}

  /**
   * The store, and whether the library made it from settings (then {@code Idempotency.shutdown()}
   * closes it).
   */
  public static IdempotencyStore select(
      Map<String, String> values, ListableBeanFactory beans, ClassLoader cl) {
    StoreSettings settings = StoreSettings.of(values);
    String wanted = settings.get("idempotent.store").orElse(null);
    boolean ownRedis =
        settings.get("idempotent.redisson.address").isPresent()
            || settings.get("idempotent.redisson.config").isPresent();
    boolean ownDatabase = settings.get("idempotent.jdbc.url").isPresent();
    if ((wanted == null || wanted.equals("redisson") && !ownRedis)
        && present(cl, REDISSON_STORE, REDISSON_CLIENT)) {
      IdempotencyStore s = Redis.onClientBean(settings, beans);
      if (s != null) {
        return s;
      }
    }
    if ((wanted == null || wanted.equals("jdbc") && !ownDatabase)
        && present(cl, JDBC_STORE, SPRING_JDBC)) {
      IdempotencyStore s = Database.onDataSourceBean(settings, beans);
      if (s != null) {
        return s;
      }
    }
    Map<String, String> chosen = new HashMap<>(values);
    if (wanted == null && present(cl, "dev.idempotent.memory.CaffeineIdempotencyStore")) {
      chosen.put("idempotent.store", "memory");
    }
    return PropertiesConfigLoader.createStore(chosen, cl);
  }

  private static boolean present(ClassLoader cl, String... classNames) {
    for (String name : classNames) {
      try {
        Class.forName(name, false, cl);
      } catch (ClassNotFoundException | LinkageError e) {
        return false;
      }
    }
    return true;
  }

  /** Loaded only when Redisson and idempotent-store-redisson are present. */
  static final class Redis {
    private Redis() {}

    static IdempotencyStore onClientBean(StoreSettings settings, ListableBeanFactory beans) {
      RedissonClient client = beans.getBeanProvider(RedissonClient.class).getIfUnique();
      if (client == null) {
        return null;
      }
      RedissonIdempotencyStore.Builder b = RedissonIdempotencyStore.builder(client);
      String prefix = settings.get("idempotent.redisson.key-prefix").orElse(null);
      if (prefix != null) {
        b = b.keyPrefix(prefix);
      }
      int replicas =
          settings.get("idempotent.redisson.sync-replicas").map(Integer::parseInt).orElse(0);
      if (replicas > 0) {
        b =
            b.syncReplicas(
                replicas,
                settings
                    .duration("idempotent.redisson.sync-timeout")
                    .orElse(Duration.ofSeconds(1)));
      }
      try {
        IdempotencyStore store = b.build();
        LOG.info(
            "Idempotency records in Redis through the application's RedissonClient ({})", store);
        return store;
      } catch (IllegalArgumentException e) {
        throw new IdempotencyConfigurationException("idempotent.redisson.*: " + e.getMessage(), e);
      }
    }
  }

  /** Loaded only when spring-jdbc and idempotent-store-jdbc are present. */
  static final class Database {
    private Database() {}

    static IdempotencyStore onDataSourceBean(StoreSettings settings, ListableBeanFactory beans) {
      DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
      if (dataSource == null) {
        return null;
      }
      JdbcIdempotencyStore.Builder b =
          JdbcIdempotencyStore.builder(dataSource)
              .connectionProvider(new SpringTransactionConnections(dataSource));
      settings.get("idempotent.jdbc.table").ifPresent(b::table);
      settings
          .get("idempotent.jdbc.create-table")
          .ifPresent(v -> b.createTable(Boolean.parseBoolean(v)));
      settings.duration("idempotent.jdbc.query-timeout").ifPresent(b::queryTimeout);
      settings
          .duration("idempotent.jdbc.purge-every")
          .ifPresent(every -> b.purgeEvery(every, 1000));
      IdempotencyStore store = b.build();
      LOG.info("Idempotency records in the application's DataSource ({})", store);
      return store;
    }
  }
}
