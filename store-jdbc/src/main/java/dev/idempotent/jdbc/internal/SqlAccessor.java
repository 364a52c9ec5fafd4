package dev.idempotent.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the statements of one {@link SqlStatements} on a connection: prepares each, binds its {@link
 * Values} in the order its {@link Sql} names them, sets the query timeout and executes it. The one
 * place where values meet statements.
 */
public final class SqlAccessor {
  private static final long NO_CODE = -1;

  /** Reads one row of a result. */
  @FunctionalInterface
  public interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** What an update changed, and the code it returned as its generated key ({@code -1}: none). */
  public record Counted(int rows, long code) {}

  private final SqlStatements sql;

  public SqlAccessor(SqlStatements sql) {
    this.sql = sql;
  }

  /** The statements this accessor runs. */
  public SqlStatements statements() {
    return sql;
  }

  /** Runs an update and returns its row count. */
  public int update(Connection c, int timeout, Sql statement, Values values) throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, values, timeout, false)) {
      return ps.executeUpdate();
    }
  }

  /**
   * Runs one update once per element of {@code values} as one JDBC batch (one round trip where the
   * driver pipelines batches, as PostgreSQL's does) and returns the row count of each, in order; a
   * count may be {@link Statement#SUCCESS_NO_INFO} when the driver does not say.
   */
  public int[] updateEach(Connection c, int timeout, Sql statement, List<Values> values)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement.text())) {
      if (timeout > 0) {
        ps.setQueryTimeout(timeout);
      }
      for (Values v : values) {
        bind(ps, statement, v);
        ps.addBatch();
      }
      return ps.executeBatch();
    }
  }

  /** Runs an update and returns its row count and the code it returned as its generated key. */
  public Counted updateWithCode(Connection c, int timeout, Sql statement, Values values)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, values, timeout, true)) {
      int rows = ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        return new Counted(rows, keys != null && keys.next() ? keys.getLong(1) : NO_CODE);
      }
    }
  }

  /** Runs a query and reads its first row, or returns {@code null} when it has none. */
  public <T> T queryRow(
      Connection c, int timeout, Sql statement, Values values, RowReader<T> reader)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, values, timeout, false);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? reader.read(rs) : null;
    }
  }

  /** Runs a query and reads all its rows. */
  public <T> List<T> queryAll(
      Connection c, int timeout, Sql statement, Values values, RowReader<T> reader)
      throws SQLException {
    List<T> rows = new ArrayList<>();
    try (PreparedStatement ps = prepare(c, statement, values, timeout, false);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(reader.read(rs));
      }
    }
    return rows;
  }

  /**
   * Prepares {@code statement} with its values bound and {@code timeout} seconds set (0: none),
   * asking for the generated key when {@code returnKey}.
   */
  private PreparedStatement prepare(
      Connection c, Sql statement, Values values, int timeout, boolean returnKey)
      throws SQLException {
    PreparedStatement ps =
        returnKey
            ? c.prepareStatement(statement.text(), Statement.RETURN_GENERATED_KEYS)
            : c.prepareStatement(statement.text());
    try {
      if (timeout > 0) {
        ps.setQueryTimeout(timeout);
      }
      bind(ps, statement, values);
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  private void bind(PreparedStatement ps, Sql statement, Values v) throws SQLException {
    int i = 1;
    for (Sql.Param p : statement.params()) {
      switch (p) {
        case SCOPE_ID -> ps.setLong(i, v.key().scopeId());
        case SCOPE -> sql.bindText(ps, i, v.key().scope());
        case KEY -> sql.bindText(ps, i, v.key().key());
        case OWNER -> ps.setString(i, v.owner());
        case FINGERPRINT -> ps.setString(i, v.fingerprint());
        case LEASE, TTL, AGE -> ps.setLong(i, v.micros());
        case OUTCOME -> ps.setBytes(i, v.outcome());
        case PREVIOUS_OWNER -> ps.setString(i, v.previousOwner());
        case LIMIT -> ps.setInt(i, v.limit());
        case OFFSET -> ps.setInt(i, v.limit() - 1);
        case AFTER_SCOPE_ID -> ps.setObject(i, v.after().scopeId());
        case AFTER_KEY -> ps.setObject(i, v.after().key());
        case UP_TO_SCOPE_ID -> ps.setObject(i, v.upTo().scopeId());
        case UP_TO_KEY -> ps.setObject(i, v.upTo().key());
      }
      i++;
    }
  }
}
