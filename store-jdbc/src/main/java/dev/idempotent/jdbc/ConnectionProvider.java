package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Where {@link JdbcIdempotencyStore#complete} gets its connection when the outcome must be recorded
 * in the caller's own transaction, so that the {@code COMPLETED} record commits or rolls back
 * together with the business rows. Only {@code complete} uses it; every other store call takes its
 * own short autocommit connection from the store's {@link DataSource}.
 *
 * <p>The store never commits, rolls back, closes or changes the auto-commit mode of the connection
 * it is given; it runs one {@code UPDATE} on it and hands it back through {@link #done}. If the
 * caller's transaction rolls back, the claim stays {@code IN_PROGRESS} and frees itself when its
 * lease ends; a retry then runs the method again.
 *
 * <p>A completion on the caller's connection that fails (a statement that failed before it aborted
 * the transaction, a lock wait timed out, the connection broke), or that finds the claim no longer
 * the caller's, fails the call with {@code IdempotencyStoreException}: roll the transaction back.
 * It is never retried, and never written on any other connection, so the record cannot commit while
 * the business rows roll back. The same holds when {@link #connection()} throws. Give the store a
 * {@link DataSource} of its own, whose connections do not join the caller's transaction: claims,
 * renewals and releases commit at once on them.
 *
 * <h2>Spring</h2>
 *
 * Without a compile-time dependency on Spring, either hand the store a {@code
 * TransactionAwareDataSourceProxy}:
 *
 * <pre>{@code
 * .connectionProvider(ConnectionProvider.closingConnectionsOf(new TransactionAwareDataSourceProxy(dataSource)))
 * }</pre>
 *
 * or bind to the current transaction explicitly:
 *
 * <pre>{@code
 * .connectionProvider(new ConnectionProvider() {
 *   public Connection connection() { return DataSourceUtils.getConnection(dataSource); }
 *   public void done(Connection c) { DataSourceUtils.releaseConnection(c, dataSource); }
 * })
 * }</pre>
 *
 * <h2>Plain JDBC</h2>
 *
 * Keep the connection of the open transaction in a {@link ThreadLocal}; return {@code null} when
 * none is open, and the store uses a connection of its own:
 *
 * <pre>{@code
 * static final ThreadLocal<Connection> TX = new ThreadLocal<>();
 *
 * ConnectionProvider provider = new ConnectionProvider() {
 *   public Connection connection() { return TX.get(); }   // null: no transaction open, the store uses its own
 *   public void done(Connection c) {}                      // the transaction's owner commits and closes it
 * };
 *
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   TX.set(c);
 *   try {
 *     service.placeOrder(request);                          // business inserts on c; the outcome is recorded on c
 *     c.commit();
 *   } catch (RuntimeException e) {
 *     c.rollback();
 *     throw e;
 *   } finally {
 *     TX.remove();
 *   }
 * }
 * }</pre>
 */
public interface ConnectionProvider {

  /**
   * The connection of the caller's current transaction, or {@code null} to let the store use a
   * connection of its own (autocommit) for this completion.
   */
  Connection connection() throws SQLException;

  /**
   * Called once after the store has used a connection returned by {@link #connection()}, even on
   * failure.
   */
  void done(Connection connection) throws SQLException;

  /**
   * Takes a connection from {@code dataSource} and closes it when done: for transaction-aware data
   * sources such as Spring's {@code TransactionAwareDataSourceProxy}, whose connections join the
   * current transaction and whose {@code close()} leaves a transactional connection open.
   */
  static ConnectionProvider closingConnectionsOf(DataSource dataSource) {
    Objects.requireNonNull(dataSource, "dataSource");
    return new ConnectionProvider() {
      @Override
      public Connection connection() throws SQLException {
        return dataSource.getConnection();
      }

      @Override
      public void done(Connection connection) throws SQLException {
        connection.close();
      }
    };
  }
}
