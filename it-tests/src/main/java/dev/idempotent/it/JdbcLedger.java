package dev.idempotent.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A ledger table: one {@code INSERT INTO ledger} row per execution, on the ledger's own
 * connections.
 */
public final class JdbcLedger implements Ledger {
  /** The business table; the same DDL works on PostgreSQL and MariaDB. */
  public static final String TABLE = "ledger";

  private final DataSource dataSource;
  private final AutoCloseable pool;

  public JdbcLedger(DataSource dataSource, AutoCloseable pool) {
    this.dataSource = dataSource;
    this.pool = pool;
  }

  /**
   * Creates the table when missing; run it once, before workers start (concurrent DDL can collide).
   */
  public void createTable() {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (run_id VARCHAR(64) NOT NULL, idem_key VARCHAR(200) NOT NULL, worker VARCHAR(64)"
              + " NOT NULL, nonce VARCHAR(64) NOT NULL, created_at TIMESTAMP DEFAULT"
              + " CURRENT_TIMESTAMP)");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create table " + TABLE + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void append(String runId, String key, String worker, String nonce) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO "
                    + TABLE
                    + " (run_id, idem_key, worker, nonce) VALUES (?, ?, ?, ?)")) {
      s.setString(1, runId);
      s.setString(2, key);
      s.setString(3, worker);
      s.setString(4, nonce);
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("ledger insert failed: " + e.getMessage(), e);
    }
  }

  @Override
  public Map<String, Long> counts(String runId, Collection<String> keys) {
    Map<String, Long> counts = new LinkedHashMap<>();
    keys.forEach(k -> counts.put(k, 0L));
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT idem_key, COUNT(*) FROM "
                    + TABLE
                    + " WHERE run_id = ? GROUP BY idem_key")) {
      s.setString(1, runId);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          counts.put(rs.getString(1), rs.getLong(2));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("ledger count failed: " + e.getMessage(), e);
    }
    return counts;
  }

  @Override
  public void clear(String runId, Collection<String> keys) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement("DELETE FROM " + TABLE + " WHERE run_id = ?")) {
      s.setString(1, runId);
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("ledger clean-up failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      pool.close();
    } catch (Exception e) {
      // closing a pool at the end of a run; nothing left to do
    }
  }
}
