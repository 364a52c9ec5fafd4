package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The hand-written JDBC baseline: the minimum statements on the same pool and table as the store, each on a
 * connection taken from the pool for that statement (a claim and its completion are separated by the method
 * body): one claim {@code INSERT} that does nothing when the key exists, and one owner-checked completion
 * {@code UPDATE}.
 */
final class JdbcBaseline {
  static final String SCOPE = "bench.baseline";

  private final DataSource pool;
  private final boolean binaryKeys;
  private final String claimSql;
  private final String completeSql;
  private final long leaseMicros;
  private final long ttlMicros;

  JdbcBaseline(DataSource pool, String database, String table, Duration lease, Duration ttl) {
    this.pool = pool;
    this.leaseMicros = lease.toNanos() / 1000;
    this.ttlMicros = ttl.toNanos() / 1000;
    String columns = " (scope, idem_key, status, owner, expires_at, created_at, updated_at) VALUES (?, ?, "
        + "'IN_PROGRESS', ?, ";
    String owned = " WHERE scope = ? AND idem_key = ? AND owner = ? AND status = 'IN_PROGRESS'";
    if ("postgresql".equals(database)) {
      String later = "statement_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 microsecond'";
      binaryKeys = false;
      claimSql = "INSERT INTO " + table + columns + later + ", statement_timestamp(), statement_timestamp())"
          + " ON CONFLICT (scope, idem_key) DO NOTHING";
      completeSql = "UPDATE " + table + " SET status = 'COMPLETED', outcome = ?, expires_at = " + later
          + ", updated_at = statement_timestamp()" + owned;
    } else {
      String later = "TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6))";
      binaryKeys = true;
      claimSql = "INSERT IGNORE INTO " + table + columns + later + ", UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))";
      completeSql = "UPDATE " + table + " SET status = 'COMPLETED', outcome = ?, expires_at = " + later
          + ", updated_at = UTC_TIMESTAMP(6)" + owned;
    }
  }

  /** Claims {@code key} for {@code owner}, runs the body, records the outcome. */
  Receipt submit(String key, String owner, long amountCents) throws SQLException {
    try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(claimSql)) {
      bindKey(ps, 1, SCOPE);
      bindKey(ps, 2, key);
      ps.setString(3, owner);
      ps.setLong(4, leaseMicros);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("the baseline's key was taken: " + key);
      }
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    byte[] outcome = BaselineOutcomes.encode(receipt);
    try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(completeSql)) {
      ps.setBytes(1, outcome);
      ps.setLong(2, ttlMicros);
      bindKey(ps, 3, SCOPE);
      bindKey(ps, 4, key);
      ps.setString(5, owner);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("the baseline lost its claim of " + key);
      }
    }
    return receipt;
  }

  private void bindKey(PreparedStatement ps, int index, String value) throws SQLException {
    if (binaryKeys) {
      ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
    } else {
      ps.setString(index, value);
    }
  }
}
