package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.internal.SqlStatements.Refusal;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Completions whose outcome is larger than the database accepts: told apart by the dialect ({@link
 * SqlStatements#refusal}), they release the key ({@link
 * OutcomeNotRecordedException#releasingTheKey}) instead of being retried until the lease ends, with
 * a message that names the size and what to raise.
 */
public final class OversizedOutcomes {
  /** Outcomes from this size on are checked against a dialect's packet limit. */
  private static final int PACKET_CHECKED_FROM = 64 * 1024;

  private final SqlStatements sql;
  private final JdbcDialect dialect;

  /** The server's packet limit as last read, 0 until read (see {@link #packetLimit}). */
  private volatile long packetLimit;

  public OversizedOutcomes(SqlStatements sql, JdbcDialect dialect) {
    this.sql = sql;
    this.dialect = dialect;
  }

  /**
   * For outcomes of {@value #PACKET_CHECKED_FROM} bytes or more, where the dialect has a packet
   * limit: the limit, read on {@code c} when unknown and again whenever the outcome is at least
   * half the last value read (it may have been raised); 0 when not known.
   */
  public long packetLimit(Connection c, int outcomeLength) throws SQLException {
    String query = sql.packetLimitQuery();
    if (query == null || outcomeLength < PACKET_CHECKED_FROM) {
      return 0;
    }
    long known = packetLimit;
    if (known > 0 && outcomeLength < known / 2) {
      return known;
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      known = rs.next() ? rs.getLong(1) : 0;
    }
    packetLimit = known;
    return known;
  }

  /**
   * The failure of the completion of {@code outcome}, which failed with {@code e} where the packet
   * limit was {@code limit}, when the dialect reads {@code e} as a refusal of its size; else {@code
   * null}.
   */
  public OutcomeNotRecordedException refusal(
      RecordKey key, byte[] outcome, long limit, SQLException e) {
    long sent = sql.completionBytes(key, outcome);
    Refusal refusal = sql.refusal(e, sent, limit);
    if (refusal == Refusal.NONE) {
      return null;
    }
    String fix =
        refusal == Refusal.COLUMN_TOO_SMALL
            ? "the outcome column of table "
                + sql.table()
                + " is too small for it: give it the type in "
                + dialect.schemaResource()
            : sql.tooLargeAdvice(sent, limit);
    return OutcomeNotRecordedException.releasingTheKey(
        "the outcome of "
            + key
            + " is "
            + outcome.length
            + " bytes, and "
            + fix
            + " ("
            + RedactedSqlErrors.message(e.getMessage(), key)
            + ")",
        RedactedSqlErrors.copyOf(e, key));
  }
}
