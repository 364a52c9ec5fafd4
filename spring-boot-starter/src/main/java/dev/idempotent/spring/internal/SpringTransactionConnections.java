package dev.idempotent.spring.internal;

import dev.idempotent.jdbc.ConnectionProvider;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Completions join the Spring-managed transaction of the calling thread when that transaction holds
 * a connection of the store's {@link DataSource} (so the {@code COMPLETED} record commits or rolls
 * back with the business rows); otherwise ({@code null}) the store completes on a short connection
 * of its own from the same pool.
 */
public final class SpringTransactionConnections implements ConnectionProvider {
  private final DataSource dataSource;

  public SpringTransactionConnections(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public Connection connection() {
    if (!TransactionSynchronizationManager.isActualTransactionActive()
        || !TransactionSynchronizationManager.hasResource(dataSource)) {
      return null;
    }
    return DataSourceUtils.getConnection(dataSource);
  }

  @Override
  public void done(Connection connection) {
    DataSourceUtils.releaseConnection(connection, dataSource);
  }
}
