package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.jdbc.JdbcStoreException;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's own connections: one from the {@link DataSource} per operation, bounded by the
 * timeout, committed or rolled back, and driver errors turned into {@link JdbcStoreException}s that
 * carry no bound value.
 *
 * <p>On PostgreSQL and MySQL/MariaDB the timeout is the connection's network timeout, set for the
 * operation and restored after it: a hung or unreachable database, or a lock wait, fails the
 * operation within the timeout. That is a socket option, where a JDBC query timeout costs a timer
 * task per statement (and a wake-up of the driver's timer thread). On H2, where the driver does not
 * support network timeouts, and for the purge, each statement gets a query timeout instead.
 */
public final class StoreConnections {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

  /** PostgreSQL, MySQL/MariaDB and H2 (which reports 42102 to 42104 as they are, or as 42S02). */
  private static final Set<String> MISSING_TABLE_STATES =
      Set.of("42P01", "42S02", "42S03", "42S04", "42102", "42103", "42104");

  /**
   * Work on one connection; {@code statementTimeout} is the query timeout in seconds to set, 0 for
   * none.
   */
  @FunctionalInterface
  public interface Work<T> {
    T apply(Connection c, int statementTimeout) throws SQLException;
  }

  private final DataSource dataSource;
  private final String table;
  private final JdbcDialect dialect;
  private final int timeoutSeconds;
  private final int timeoutMillis;

  /** Whether operations are bounded by the connection's network timeout. */
  private volatile boolean networkTimeouts;

  private volatile String location;

  public StoreConnections(
      DataSource dataSource, String table, JdbcDialect dialect, Duration timeout, String location) {
    this.dataSource = dataSource;
    this.table = table;
    this.dialect = dialect;
    this.timeoutSeconds = (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    this.networkTimeouts = dialect != JdbcDialect.H2;
    this.location = location;
  }

  /** The query timeout in whole seconds, for statements on a connection the store did not open. */
  public int queryTimeoutSeconds() {
    return timeoutSeconds;
  }

  /** The database's URL without its password, or a note when it has not been reached yet. */
  public String location() {
    return location == null ? "(database not reached yet)" : location;
  }

  /**
   * Runs {@code work} on its own connection, bounded by the network timeout where the driver has
   * one.
   */
  public <T> T run(String operation, RecordKey key, Work<T> work) {
    return run(operation, key, work, networkTimeouts);
  }

  /**
   * {@link #run} with a query timeout on every statement, for work that may take longer than one
   * call.
   */
  public <T> T runWithQueryTimeout(String operation, RecordKey key, Work<T> work) {
    return run(operation, key, work, false);
  }

  private <T> T run(String operation, RecordKey key, Work<T> work, boolean useNetworkTimeout) {
    try (Connection c = dataSource.getConnection()) {
      if (location == null) {
        location = describe(c.getMetaData());
      }
      int restoreNetworkTimeout = -1;
      if (useNetworkTimeout) {
        try {
          restoreNetworkTimeout = c.getNetworkTimeout();
          c.setNetworkTimeout(Runnable::run, timeoutMillis);
        } catch (SQLFeatureNotSupportedException | AbstractMethodError unsupported) {
          networkTimeouts = false;
          LOG.debug("the JDBC driver has no network timeouts; using query timeouts instead");
        }
      }
      int statementTimeout = restoreNetworkTimeout >= 0 ? 0 : timeoutSeconds;
      boolean autoCommit = c.getAutoCommit();
      try {
        T result = work.apply(c, statementTimeout);
        if (!autoCommit) {
          c.commit();
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        if (!autoCommit) {
          try {
            c.rollback();
          } catch (SQLException r) {
            e.addSuppressed(r);
          }
        }
        throw e;
      } finally {
        if (restoreNetworkTimeout >= 0 && !c.isClosed()) {
          try {
            c.setNetworkTimeout(Runnable::run, restoreNetworkTimeout);
          } catch (SQLException e) {
            LOG.debug("could not restore the network timeout of a pooled connection", e);
          }
        }
      }
    } catch (SQLException e) {
      throw failure(operation, key, e);
    }
  }

  /**
   * The store's exception for a driver error: the message names the operation, the redacted key,
   * the URL and the table, with the SQLState and the first line of the driver's message without its
   * values; the cause is a {@link RedactedSqlErrors copy} of the driver's error, so that no bound
   * value (key, outcome) is carried.
   */
  public JdbcStoreException failure(String operation, RecordKey key, SQLException e) {
    String where = location();
    SQLException cause = RedactedSqlErrors.copyOf(e, key);
    if (isMissingTable(e)) {
      return new JdbcStoreException(
          "idempotency table "
              + table
              + " (or "
              + table
              + "_scope or "
              + table
              + "_meta next to it) does not exist in "
              + where
              + ": run "
              + dialect.schemaResource()
              + " (in idempotent-store-jdbc; replace the table name if you chose another) or build"
              + " the store with createTable(true) / set idempotent.jdbc.create-table=true",
          cause);
    }
    return new JdbcStoreException(
        "idempotency store "
            + operation
            + (key == null ? "" : " of " + key)
            + " failed on "
            + where
            + " (table "
            + table
            + "): "
            + (e.getSQLState() == null ? "" : "[" + e.getSQLState() + "] ")
            + RedactedSqlErrors.message(e.getMessage(), key),
        cause);
  }

  static boolean isMissingTable(SQLException e) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if ((s.getSQLState() != null && MISSING_TABLE_STATES.contains(s.getSQLState()))
          || s.getErrorCode() == 1146) {
        return true;
      }
    }
    return false;
  }

  /** The URL of a database without its password. */
  public static String describe(DatabaseMetaData md) {
    try {
      return JdbcUrls.withoutPassword(md.getURL());
    } catch (SQLException | RuntimeException e) {
      return "(JDBC URL unavailable)";
    }
  }
}
