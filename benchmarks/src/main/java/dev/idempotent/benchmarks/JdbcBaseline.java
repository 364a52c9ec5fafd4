package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The hand-written JDBC baseline: the minimum statements on the same pool and table as the store,
 * each on a connection taken from the pool for that statement (a claim and its completion are
 * separated by the method body): one claim {@code INSERT} that does nothing when the key exists,
 * and one owner-checked completion {@code UPDATE}, in the store's table layout (the scope as its
 * id, status codes).
 */
final class JdbcBaseline {
  static final String SCOPE = "bench.baseline";
  private static final long SCOPE_ID = JdbcRows.scopeId(SCOPE);

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
    String columns = " (scope_id, idem_key, status, owner, expires_at) VALUES (?, ?, 1, ?, ";
    String owned = " WHERE scope_id = ? AND idem_key = ? AND owner = ? AND status = 1";
    if ("postgresql".equals(database)) {
      String later = "statement_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 microsecond'";
      binaryKeys = false;
      claimSql =
          "INSERT INTO "
              + table
              + columns
              + later
              + ") ON CONFLICT (scope_id, idem_key) DO NOTHING";
      completeSql =
          "UPDATE " + table + " SET status = 2, outcome = ?, expires_at = " + later + owned;
    } else {
      String later = "TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6))";
      binaryKeys = true;
      claimSql = "INSERT IGNORE INTO " + table + columns + later + ")";
      completeSql =
          "UPDATE " + table + " SET status = 2, outcome = ?, expires_at = " + later + owned;
    }
  }

  /** Claims {@code key} for {@code owner}, runs the body, records the outcome. */
  Receipt submit(String key, String owner, long amountCents) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(claimSql)) {
      ps.setLong(1, SCOPE_ID);
      bindKey(ps, 2, key);
      ps.setString(3, owner);
      ps.setLong(4, leaseMicros);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("the baseline's key was taken: " + key);
      }
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    byte[] outcome = BaselineOutcomes.encode(receipt);
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(completeSql)) {
      ps.setBytes(1, outcome);
      ps.setLong(2, ttlMicros);
      ps.setLong(3, SCOPE_ID);
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
