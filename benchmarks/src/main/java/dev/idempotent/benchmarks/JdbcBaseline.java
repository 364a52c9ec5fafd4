package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The hand-written JDBC baseline: the minimum statements on the same pool and table as the store,
 * each on a connection taken from the pool for that statement (a claim and its completion are
 * separated by the method body), in the store's tables (the scope as its id): one claim {@code
 * INSERT} that does nothing when the key exists, one owner-checked completion {@code UPDATE}; a
 * replay is one {@code SELECT} of the outcome by the primary key, as code that knows the key is
 * completed would write it. {@link #replayAfterClaim} is the replay of a de-duplicator that does
 * not know: its claim {@code INSERT} finds the key taken, then the {@code SELECT}.
 */
final class JdbcBaseline {
  static final String SCOPE = "bench.baseline";
  private static final long SCOPE_ID = JdbcRows.scopeId(SCOPE);

  private final DataSource pool;
  private final boolean binaryKeys;
  private final String claimSql;
  private final String completeSql;
  private final String replaySql;
  private final long leaseMicros;
  private final long ttlMicros;

  JdbcBaseline(DataSource pool, String database, String table, Duration lease, Duration ttl) {
    this.pool = pool;
    this.leaseMicros = lease.toNanos() / 1000;
    this.ttlMicros = ttl.toNanos() / 1000;
    String columns = " (scope_id, idem_key, owner, expires_at) VALUES (?, ?, ?, ";
    String byKey = " WHERE scope_id = ? AND idem_key = ?";
    String owned = byKey + " AND owner = ?";
    if ("postgresql".equals(database)) {
      String later = "statement_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 microsecond'";
      binaryKeys = false;
      claimSql =
          "INSERT INTO "
              + table
              + columns
              + later
              + ") ON CONFLICT (scope_id, idem_key) DO NOTHING";
      replaySql =
          "SELECT outcome FROM " + table + byKey + " AND expires_at > statement_timestamp()";
      completeSql =
          "UPDATE " + table + " SET owner = NULL, outcome = ?, expires_at = " + later + owned;
    } else {
      String later = "TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6))";
      binaryKeys = true;
      claimSql = "INSERT IGNORE INTO " + table + columns + later + ")";
      replaySql = "SELECT outcome FROM " + table + byKey + " AND expires_at > UTC_TIMESTAMP(6)";
      completeSql =
          "UPDATE " + table + " SET owner = NULL, outcome = ?, expires_at = " + later + owned;
    }
  }

  /** Claims {@code key} for {@code owner}, runs the body, records the outcome. */
  Receipt submit(String key, String owner, long amountCents) throws SQLException {
    try (Connection c = pool.getConnection()) {
      if (claim(c, key, owner) != 1) {
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

  /** The recorded receipt of a completed key: one {@code SELECT} and the decoding. */
  Receipt replay(String key) throws SQLException {
    try (Connection c = pool.getConnection()) {
      return read(c, key);
    }
  }

  /**
   * A repeat as a hand-written de-duplicator meets it: the claim {@code INSERT} (which finds the
   * key taken), then the {@code SELECT} of the outcome, on one connection.
   */
  Receipt replayAfterClaim(String key, String owner) throws SQLException {
    try (Connection c = pool.getConnection()) {
      if (claim(c, key, owner) != 0) {
        throw new IllegalStateException("the baseline claimed a recorded key: " + key);
      }
      return read(c, key);
    }
  }

  /** The claim {@code INSERT}: 1 when it inserted, 0 when the key was taken. */
  private int claim(Connection c, String key, String owner) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(claimSql)) {
      ps.setLong(1, SCOPE_ID);
      bindKey(ps, 2, key);
      ps.setString(3, owner);
      ps.setLong(4, leaseMicros);
      return ps.executeUpdate();
    }
  }

  /** The {@code SELECT} of a completed key's outcome, decoded. */
  private Receipt read(Connection c, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(replaySql)) {
      ps.setLong(1, SCOPE_ID);
      bindKey(ps, 2, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no completed record of " + key);
        }
        return BaselineOutcomes.decode(rs.getBytes(1));
      }
    }
  }

  private void bindKey(PreparedStatement ps, int index, String value) throws SQLException {
    if (binaryKeys) {
      ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
    } else {
      ps.setString(index, value);
    }
  }
}
