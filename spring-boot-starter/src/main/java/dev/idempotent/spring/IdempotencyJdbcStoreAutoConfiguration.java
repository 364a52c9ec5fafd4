package dev.idempotent.spring;

import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.SpringTransactionConnections;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
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
@Conditional(StoreConditions.JdbcChosen.class)
@EnableConfigurationProperties(IdempotencyProperties.class)
public class IdempotencyJdbcStoreAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");

  /** A pool of the store's own, from {@code idempotent.jdbc.*}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(StoreConditions.OwnDatabase.class)
  static class OwnDatabase {
    /** Closed by the library, which made it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(IdempotencyProperties properties) {
      return StoresFromSettings.create(properties, IdempotencyProperties.Store.JDBC);
    }
  }

  /** The application's {@link DataSource}, in its Spring-managed transactions. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.jdbc.datasource.DataSourceUtils")
  @Conditional(StoreConditions.NoOwnDatabase.class)
  @ConditionalOnSingleCandidate(DataSource.class)
  static class OnDataSourceBean {
    /** Closing the store leaves the DataSource open: it is the application's. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(DataSource dataSource, IdempotencyProperties properties) {
      IdempotencyProperties.Jdbc settings = properties.getJdbc();
      JdbcIdempotencyStore.Builder b =
          JdbcIdempotencyStore.builder(dataSource)
              .connectionProvider(new SpringTransactionConnections(dataSource));
      if (settings.getTable() != null) {
        b.table(settings.getTable());
      }
      if (settings.getCreateTable() != null) {
        b.createTable(settings.getCreateTable());
      }
      if (settings.getQueryTimeout() != null) {
        b.queryTimeout(settings.getQueryTimeout());
      }
      if (settings.getPurgeEvery() != null) {
        b.purgeEvery(settings.getPurgeEvery(), 1000);
      }
      IdempotencyStore store = b.build();
      LOG.info("Idempotency records in the application's DataSource ({})", store);
      return store;
    }
  }
}
