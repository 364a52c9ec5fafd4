package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL of one dialect for one table. All lease and expiry arithmetic happens in SQL on the database clock;
 * durations are bound as microseconds.
 *
 * <p>Columns: {@code scope, idem_key, status, owner, fingerprint, outcome, expires_at, created_at, updated_at}.
 */
public abstract class DialectSql {
  /** The status of a claim. */
  public static final String STATUS = "IN_PROGRESS";

  protected final String table;

  protected DialectSql(String table) {
    this.table = table;
  }

  public static DialectSql of(JdbcDialect dialect, String table) {
    return switch (dialect) {
      case POSTGRESQL -> new Postgres(table);
      case MYSQL -> new MySql(table);
      case H2 -> new H2(table);
    };
  }

  /** The current time of the database, as an SQL expression. */
  protected abstract String now();

  /** The current time of the database plus the microseconds bound to one {@code ?}. */
  protected abstract String nowPlusMicros();

  /** Microseconds from now until {@code column} (negative once passed). */
  protected abstract String microsUntil(String column);

  /**
   * The condition of a record that has not expired, in statements that find the record by its primary key.
   * By default {@code expires_at > now}.
   */
  protected String live() {
    return "expires_at > " + now();
  }

  /** Claims the key in one statement where the database allows it. */
  public abstract Claimed claim(Connection c, String scope, String key, String owner, String fingerprint,
      long leaseMicros, int timeoutSeconds) throws SQLException;

  /**
   * Claims a key whose record {@link Claimed#EXISTS existed} but was not live when read: one statement that
   * takes over only an expired record. Dialects whose {@link #claim} never answers {@code EXISTS} need not
   * override it.
   */
  public Claimed claimExpired(Connection c, String scope, String key, String owner, String fingerprint,
      long leaseMicros, int timeoutSeconds) throws SQLException {
    return claim(c, scope, key, owner, fingerprint, leaseMicros, timeoutSeconds);
  }

  /** Binds a scope or key. */
  public void bindKeyPart(PreparedStatement ps, int index, String value) throws SQLException {
    ps.setString(index, value);
  }

  /** Selects status, owner, fingerprint, outcome and microseconds left of the live record; binds scope, key. */
  public String readSql() {
    return "SELECT status, owner, fingerprint, outcome, " + microsUntil("expires_at") + " AS expires_in FROM "
        + table + " WHERE scope = ? AND idem_key = ? AND " + live();
  }

  /** Binds outcome, ttl micros, scope, key, owner. */
  public String completeSql() {
    return "UPDATE " + table + " SET status = 'COMPLETED', outcome = ?, expires_at = " + nowPlusMicros()
        + ", updated_at = " + now() + ownedClaim();
  }

  /** Binds scope, key, owner. */
  public String releaseSql() {
    return "DELETE FROM " + table + ownedClaim();
  }

  /** The administrative delete of the live record, whatever its status and owner. Binds scope, key. */
  public String deleteSql() {
    return "DELETE FROM " + table + " WHERE scope = ? AND idem_key = ? AND " + live();
  }

  /** Binds lease micros, scope, key, owner. */
  public String renewSql() {
    return "UPDATE " + table + " SET expires_at = " + nowPlusMicros() + ", updated_at = " + now() + ownedClaim();
  }

  /** Deletes at most {@code ?} expired rows. */
  public abstract String purgeBatchSql();

  private String ownedClaim() {
    return " WHERE scope = ? AND idem_key = ? AND owner = ? AND status = 'IN_PROGRESS' AND " + live();
  }

  protected static PreparedStatement prepare(Connection c, String sql, int timeoutSeconds) throws SQLException {
    return timed(c.prepareStatement(sql), timeoutSeconds);
  }

  /** {@link #prepare} for a statement whose generated key the dialect reads back. */
  protected static PreparedStatement prepareReturningKey(Connection c, String sql, int timeoutSeconds)
      throws SQLException {
    return timed(c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS), timeoutSeconds);
  }

  private static PreparedStatement timed(PreparedStatement ps, int timeoutSeconds) throws SQLException {
    if (timeoutSeconds > 0) {
      ps.setQueryTimeout(timeoutSeconds);
    }
    return ps;
  }

  /**
   * {@code INSERT} of a new claim whose status column is {@code statusExpression}; a dialect appends its
   * conflict clause. Parameters: scope, key, owner, fingerprint, lease micros ({@link #bindClaim}).
   */
  protected String insertClaim(String statusExpression) {
    return "INSERT INTO " + table + " (scope, idem_key, status, owner, fingerprint, outcome, expires_at, created_at,"
        + " updated_at) VALUES (?, ?, " + statusExpression + ", ?, ?, NULL, " + nowPlusMicros() + ", " + now() + ", "
        + now() + ")";
  }

  /** Binds the first five parameters of a claim statement: scope, key, owner, fingerprint, lease micros. */
  protected void bindClaim(PreparedStatement ps, String scope, String key, String owner, String fingerprint,
      long leaseMicros) throws SQLException {
    bindKeyPart(ps, 1, scope);
    bindKeyPart(ps, 2, key);
    ps.setString(3, owner);
    ps.setString(4, fingerprint);
    ps.setLong(5, leaseMicros);
  }

  /**
   * PostgreSQL: {@code INSERT ... ON CONFLICT DO NOTHING} for a fresh key; for a key whose record has expired,
   * one {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE expired RETURNING}. A row comes back only
   * when the claim won; {@code xmax <> 0} says the row was updated rather than inserted, and a takeover keeps the
   * claim's original {@code created_at} while the reuse of an expired completed record starts a new one, which
   * tells the two apart without reading the row first.
   * {@code statement_timestamp()} is the database time at the start of the statement, also inside a caller's
   * transaction.
   */
  static final class Postgres extends DialectSql {
    private final String insertSql;
    private final String claimSql;

    Postgres(String table) {
      super(table);
      this.insertSql = insertClaim("'IN_PROGRESS'") + " ON CONFLICT (scope, idem_key) DO NOTHING";
      this.claimSql = "INSERT INTO " + table + " AS r (scope, idem_key, status, owner, fingerprint, outcome,"
          + " expires_at, created_at, updated_at) VALUES (?, ?, 'IN_PROGRESS', ?, ?, NULL, " + nowPlusMicros() + ", "
          + now() + ", " + now() + ") ON CONFLICT (scope, idem_key) DO UPDATE SET status = 'IN_PROGRESS',"
          + " owner = EXCLUDED.owner, fingerprint = EXCLUDED.fingerprint, outcome = NULL,"
          + " expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at,"
          + " created_at = CASE WHEN r.status = 'IN_PROGRESS' THEN r.created_at ELSE EXCLUDED.created_at END"
          + " WHERE r.expires_at <= " + now() + " RETURNING (r.xmax <> 0 AND r.created_at < " + now() + ")";
    }

    @Override
    protected String now() {
      return "statement_timestamp()";
    }

    @Override
    protected String nowPlusMicros() {
      return "(statement_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 microsecond')";
    }

    @Override
    protected String microsUntil(String column) {
      return "CAST(EXTRACT(EPOCH FROM (" + column + " - statement_timestamp())) * 1000000 AS BIGINT)";
    }

    /**
     * {@code INSERT ... ON CONFLICT DO NOTHING} first: a fresh key, the common case, costs the shortest statement;
     * a taken key writes nothing (and raises no error, so a caller's transaction stays usable) and answers
     * {@link Claimed#EXISTS}. The store then reads the record and only when it is no longer live runs
     * {@link #claimExpired}.
     */
    @Override
    public Claimed claim(Connection c, String scope, String key, String owner, String fingerprint,
        long leaseMicros, int timeoutSeconds) throws SQLException {
      try (PreparedStatement ps = prepare(c, insertSql, timeoutSeconds)) {
        bindClaim(ps, scope, key, owner, fingerprint, leaseMicros);
        return ps.executeUpdate() == 1 ? Claimed.ACQUIRED : Claimed.EXISTS;
      }
    }

    /** One {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE expired} that takes over only an expired record. */
    @Override
    public Claimed claimExpired(Connection c, String scope, String key, String owner, String fingerprint,
        long leaseMicros, int timeoutSeconds) throws SQLException {
      try (PreparedStatement ps = prepare(c, claimSql, timeoutSeconds)) {
        bindClaim(ps, scope, key, owner, fingerprint, leaseMicros);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Claimed.LOST;
          }
          return rs.getBoolean(1) ? Claimed.TOOK_OVER : Claimed.ACQUIRED;
        }
      }
    }

    @Override
    public String purgeBatchSql() {
      // ctid = ANY(ARRAY(...)) is a TID scan; the outer condition skips rows renewed since the inner select.
      return "DELETE FROM " + table + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + table
          + " WHERE expires_at <= " + now() + " LIMIT ?)) AND expires_at <= " + now();
    }
  }

  /**
   * MySQL 8+ and MariaDB 10.6+: an insert for a fresh key; for a key whose record has expired, one
   * {@code INSERT ... ON DUPLICATE KEY UPDATE} whose assignments keep the existing row unless it has expired.
   * Affected-row counts differ with the driver's found-rows setting: an unchanged duplicate reports 0 rows
   * where the connection counts affected rows ({@code useAffectedRows=true} in MariaDB Connector/J and MySQL
   * Connector/J) and 1, the same as an insert, where it counts found rows (both drivers' default). So every claim
   * statement says what it did through {@code LAST_INSERT_ID(expr)}, which the server returns in the OK packet
   * and JDBC as the generated key, and a claim counts as won only on the code that says so: the values of the
   * fresh-key insert set {@link #INSERTED_CODE} and its update clause, which runs only on a duplicate and changes
   * nothing, overrides it with {@link #EXISTS_CODE}. The takeover statement reports 4 inserted, 1 unchanged, 2
   * took over an in-progress claim, 3 replaced an expired completed record. Its assignments that test
   * {@code expires_at} and {@code status} come before the ones that change them, because MySQL evaluates them
   * left to right on the row as updated so far.
   *
   * <p>No answer is ever inferred from the absence of a code, and nothing is decided once for all connections:
   * where a connection does not bring the code back (a proxy between driver and server may drop it), a fresh-key
   * claim that reports 0 rows is a duplicate (nothing was inserted, whatever the setting) and any other is
   * {@link Claimed#UNKNOWN}, and the store reads the row back to see whose it is.
   *
   * <p>Scope and key are {@code VARBINARY} columns bound as UTF-8 bytes, so comparisons are exact.
   */
  static final class MySql extends DialectSql {
    private static final long INSERTED = 4;
    private static final long UNCHANGED = 1;
    private static final long TOOK_OVER = 2;
    private static final long REPLACED_COMPLETED = 3;
    /**
     * The codes of a fresh-key insert that inserted, and that found the key taken. Far above any value an
     * {@code AUTO_INCREMENT} column added to the table could reach, so an insert id can never be mistaken for
     * either.
     */
    static final long INSERTED_CODE = 0x7E5A_1D3C_0000_0002L;
    static final long EXISTS_CODE = 0x7E5A_1D3C_0000_0001L;
    private static final long NO_CODE = -1;
    private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

    private final String insertSql;
    private final String claimSql;
    private volatile boolean warnedNoCode;

    MySql(String table) {
      super(table);
      this.insertSql = insertClaim("IF(LAST_INSERT_ID(" + INSERTED_CODE + ") > 0, 'IN_PROGRESS', 'IN_PROGRESS')")
          + " ON DUPLICATE KEY UPDATE updated_at = IF(LAST_INSERT_ID(" + EXISTS_CODE + ") = 0, updated_at,"
          + " updated_at)";
      String live = "expires_at > UTC_TIMESTAMP(6)";
      this.claimSql = "INSERT INTO " + table + " (scope, idem_key, status, owner, fingerprint, outcome, expires_at,"
          + " created_at, updated_at) VALUES (?, ?, IF(LAST_INSERT_ID(" + INSERTED + ") > 0, 'IN_PROGRESS',"
          + " 'IN_PROGRESS'), ?, ?, NULL, " + nowPlusMicros() + ", UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))"
          + " ON DUPLICATE KEY UPDATE"
          + " updated_at = IF(LAST_INSERT_ID(IF(" + live + ", " + UNCHANGED + ", IF(status = 'IN_PROGRESS', "
          + TOOK_OVER + ", " + REPLACED_COMPLETED + "))) = " + UNCHANGED + ", updated_at, UTC_TIMESTAMP(6)),"
          + " owner = IF(" + live + ", owner, ?),"
          + " fingerprint = IF(" + live + ", fingerprint, ?),"
          + " outcome = IF(" + live + ", outcome, NULL),"
          + " created_at = IF(" + live + ", created_at, UTC_TIMESTAMP(6)),"
          + " status = IF(" + live + ", status, 'IN_PROGRESS'),"
          + " expires_at = IF(" + live + ", expires_at, " + nowPlusMicros() + ")";
    }

    @Override
    protected String now() {
      return "UTC_TIMESTAMP(6)";
    }

    @Override
    protected String nowPlusMicros() {
      return "TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6))";
    }

    @Override
    protected String microsUntil(String column) {
      return "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), " + column + ")";
    }

    /**
     * Written so that no index can serve it: given {@code expires_at > now}, the optimizer estimates that open
     * range on the expiry index (a descent into the index on every statement, at the end where new claims are
     * being inserted) before it settles on the primary key, which finds the one row anyway.
     */
    @Override
    protected String live() {
      return microsUntil("expires_at") + " > 0";
    }

    @Override
    public void bindKeyPart(PreparedStatement ps, int index, String value) throws SQLException {
      ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A short insert first: a fresh key, the common case, costs the shortest statement. On a duplicate key the
     * {@code ON DUPLICATE KEY UPDATE} clause changes nothing, so the answer is {@link Claimed#EXISTS} without an
     * error (a duplicate-key error would also be logged, key and all, by the MariaDB driver). The store then
     * reads the record and only when it is no longer live runs {@link #claimExpired}. Won only on
     * {@link #INSERTED_CODE} with one row; taken on {@link #EXISTS_CODE} or on 0 rows; anything else is
     * {@link Claimed#UNKNOWN}.
     */
    @Override
    public Claimed claim(Connection c, String scope, String key, String owner, String fingerprint,
        long leaseMicros, int timeoutSeconds) throws SQLException {
      Reported reported;
      try (PreparedStatement ps = prepareReturningKey(c, insertSql, timeoutSeconds)) {
        bindClaim(ps, scope, key, owner, fingerprint, leaseMicros);
        reported = execute(ps);
      }
      if (reported.code() == INSERTED_CODE && reported.count() == 1) {
        return Claimed.ACQUIRED;
      }
      if (reported.code() == EXISTS_CODE || reported.count() == 0) {
        return Claimed.EXISTS;
      }
      if (!warnedNoCode) {
        warnedNoCode = true;
        LOG.warn("a claim on {} got no LAST_INSERT_ID code back (a proxy between the driver and the server may be"
            + " dropping it), so such claims read their row back to see whose it is (one more statement)", table);
      }
      return Claimed.UNKNOWN;
    }

    /** What a statement reported: its affected-row count and its code, {@link #NO_CODE} for none. */
    private record Reported(int count, long code) {}

    /** Runs {@code ps} and reads the code the server reported with it. */
    private static Reported execute(PreparedStatement ps) throws SQLException {
      int count = ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        return new Reported(count, keys != null && keys.next() ? keys.getLong(1) : NO_CODE);
      }
    }

    /** One {@code INSERT ... ON DUPLICATE KEY UPDATE} that takes over only an expired record. */
    @Override
    public Claimed claimExpired(Connection c, String scope, String key, String owner, String fingerprint,
        long leaseMicros, int timeoutSeconds) throws SQLException {
      try (PreparedStatement ps = prepareReturningKey(c, claimSql, timeoutSeconds)) {
        bindClaim(ps, scope, key, owner, fingerprint, leaseMicros);
        ps.setString(6, owner);
        ps.setString(7, fingerprint);
        ps.setLong(8, leaseMicros);
        Reported reported = execute(ps);
        long code = reported.code();
        if (code <= 0) {
          return reported.count() == 0 ? Claimed.LOST : Claimed.UNKNOWN;
        }
        if (code == INSERTED || code == REPLACED_COMPLETED) {
          return Claimed.ACQUIRED;
        }
        if (code == TOOK_OVER) {
          return Claimed.TOOK_OVER;
        }
        return code == UNCHANGED ? Claimed.LOST : Claimed.UNKNOWN;
      }
    }

    @Override
    public String purgeBatchSql() {
      return "DELETE FROM " + table + " WHERE expires_at <= UTC_TIMESTAMP(6) LIMIT ?";
    }
  }

  /**
   * H2 2.x: an insert; on a duplicate key (SQLState class 23) one update of the expired row that returns the
   * previous status through {@code OLD TABLE}.
   */
  static final class H2 extends DialectSql {
    private final String insertSql;
    private final String replaceExpiredSql;

    H2(String table) {
      super(table);
      this.insertSql = insertClaim("'IN_PROGRESS'");
      this.replaceExpiredSql = "SELECT status FROM OLD TABLE (UPDATE " + table + " SET status = 'IN_PROGRESS',"
          + " owner = ?, fingerprint = ?, outcome = NULL, expires_at = " + nowPlusMicros() + ", created_at = "
          + now() + ", updated_at = " + now() + " WHERE scope = ? AND idem_key = ? AND expires_at <= " + now() + ")";
    }

    @Override
    protected String now() {
      return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    protected String nowPlusMicros() {
      return "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))";
    }

    @Override
    protected String microsUntil(String column) {
      return "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), " + column + ")";
    }

    @Override
    public Claimed claim(Connection c, String scope, String key, String owner, String fingerprint,
        long leaseMicros, int timeoutSeconds) throws SQLException {
      try (PreparedStatement ps = prepare(c, insertSql, timeoutSeconds)) {
        bindClaim(ps, scope, key, owner, fingerprint, leaseMicros);
        ps.executeUpdate();
        return Claimed.ACQUIRED;
      } catch (SQLException e) {
        if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
          throw e;
        }
      }
      try (PreparedStatement ps = prepare(c, replaceExpiredSql, timeoutSeconds)) {
        ps.setString(1, owner);
        ps.setString(2, fingerprint);
        ps.setLong(3, leaseMicros);
        ps.setString(4, scope);
        ps.setString(5, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Claimed.LOST;
          }
          return STATUS.equals(rs.getString(1)) ? Claimed.TOOK_OVER : Claimed.ACQUIRED;
        }
      }
    }

    @Override
    public String purgeBatchSql() {
      return "DELETE FROM " + table + " WHERE expires_at <= " + now() + " FETCH FIRST ? ROWS ONLY";
    }
  }
}
