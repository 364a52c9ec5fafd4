package dev.idempotent.spring;

import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.jdbc.JdbcStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.SpringTransactionConnections;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import dev.idempotent.spring.internal.TypedSettings;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The JDBC store (idempotent-store-jdbc on the classpath), unless the application has an {@link
 * IdempotencyStore} bean, {@code idempotent.store} names another store, or the Redis store was
 * configured: with {@code idempotent.jdbc.url}, on a pool of its own; else on the application's
 * {@link DataSource} bean (with spring-jdbc), joined to Spring-managed transactions. It comes
 * before the memory store.
 */
@AutoConfiguration(
    before = {IdempotencyMemoryStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class},
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
    })
@ConditionalOnClass(JdbcIdempotencyStore.class)
@Conditional(IdempotencyJdbcStoreAutoConfiguration.Chosen.class)
@EnableConfigurationProperties(IdempotencyJdbcStoreAutoConfiguration.JdbcProperties.class)
public class IdempotencyJdbcStoreAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");

  /** A pool of the store's own, from {@code idempotent.jdbc.*}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(OwnDatabaseSet.class)
  static class OwnDatabase {
    /** Closed by the library, which made it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(JdbcProperties properties) {
      return StoresFromSettings.create(properties);
    }
  }

  /** The application's {@link DataSource}, in its Spring-managed transactions. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.jdbc.datasource.DataSourceUtils")
  @Conditional(NoOwnDatabase.class)
  @ConditionalOnSingleCandidate(DataSource.class)
  static class OnDataSourceBean {
    /** Closing the store leaves the DataSource open: it is the application's. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(DataSource dataSource, JdbcProperties properties) {
      IdempotencyStore store =
          JdbcStoreSettings.builder(dataSource, TypedSettings.ofStore(properties))
              .connectionProvider(new SpringTransactionConnections(dataSource))
              .build();
      LOG.info("Idempotency records in the application's DataSource ({})", store);
      return store;
    }
  }

  /** {@code idempotent.store} is unset or {@code jdbc}. */
  static final class Chosen extends StoreConditions.Chosen {
    Chosen() {
      super("jdbc");
    }
  }

  /** {@code idempotent.jdbc.url} is set. */
  static final class OwnDatabaseSet extends StoreConditions.AnySet {
    OwnDatabaseSet() {
      super(true, JdbcStoreSettings.URL.name());
    }
  }

  /** {@code idempotent.jdbc.url} is unset. */
  static final class NoOwnDatabase extends StoreConditions.AnySet {
    NoOwnDatabase() {
      super(false, JdbcStoreSettings.URL.name());
    }
  }

  /**
   * The {@code idempotent.jdbc.*} settings, typed; each is defined once in {@link
   * JdbcStoreSettings}, whose descriptions these fields repeat (a test compares them). On the
   * application's DataSource only table, create-table, query-timeout and purge-every apply.
   */
  @ConfigurationProperties("idempotent.jdbc")
  public static class JdbcProperties implements IdempotencyStoreProperties {
    /** JDBC URL of a database of its own for the store; unset: the application's DataSource. */
    private String url;

    /** User name for url. */
    private String username;

    /** Password for url. */
    private String password;

    /** Table of the records. */
    private String table = "idempotency_record";

    /** Create the table at start-up if it is missing. */
    private Boolean createTable = false;

    /** Connections of the store's own pool, with url. */
    private Integer poolSize = 10;

    /** Timeout of each statement. */
    private Duration queryTimeout = Duration.ofSeconds(5);

    /**
     * Delete expired records this often, 1000 rows per statement, pausing between them; unset:
     * never.
     */
    private Duration purgeEvery;

    @Override
    public String storeName() {
      return "jdbc";
    }

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public Boolean getCreateTable() {
      return createTable;
    }

    public void setCreateTable(Boolean createTable) {
      this.createTable = createTable;
    }

    public Integer getPoolSize() {
      return poolSize;
    }

    public void setPoolSize(Integer poolSize) {
      this.poolSize = poolSize;
    }

    public Duration getQueryTimeout() {
      return queryTimeout;
    }

    public void setQueryTimeout(Duration queryTimeout) {
      this.queryTimeout = queryTimeout;
    }

    public Duration getPurgeEvery() {
      return purgeEvery;
    }

    public void setPurgeEvery(Duration purgeEvery) {
      this.purgeEvery = purgeEvery;
    }
  }
}
