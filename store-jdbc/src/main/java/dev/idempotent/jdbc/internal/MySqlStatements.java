package dev.idempotent.jdbc.internal;

import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/**
 * MySQL 8 or later (InnoDB), and what MariaDB shares with it ({@link MariaDbStatements}).
 *
 * <p>The claim is an {@code INSERT ... ON DUPLICATE KEY UPDATE} whose update changes nothing, so a
 * taken key raises no error (the MariaDB driver logs every server error, a duplicate key's with the
 * key in it). Its row count cannot tell a duplicate from an insert on connections that count found
 * rows (the drivers' default), so it says what it did through {@code LAST_INSERT_ID(expr)}, which
 * the server returns in the OK packet and JDBC as the generated key: its values set {@link
 * #INSERTED_CODE}, and its update, which runs only on a duplicate, overrides it with {@link
 * #EXISTS_CODE}. Won only on the inserted code with one row; taken on the exists code or on 0 rows;
 * anything else (a proxy that drops the code) is unknown, and the store reads the row.
 *
 * <p>Keyed statements test expiry with {@code TIMESTAMPDIFF}, which no index serves: given {@code
 * expires_at > now}, the optimizer would estimate that open range of the expiry index on every
 * statement before it settled on the primary key. Keys and scopes are {@code VARBINARY}, bound as
 * UTF-8 bytes, so comparisons are exact. {@code INSERT IGNORE} is never used: it hides other
 * errors.
 */
class MySqlStatements extends SqlStatements {
  /**
   * The codes of a claim that inserted and of one that found the key taken: far above any value an
   * {@code AUTO_INCREMENT} column added to the table could reach.
   */
  static final long INSERTED_CODE = 0x7E5A_1D3C_0000_0002L;

  static final long EXISTS_CODE = 0x7E5A_1D3C_0000_0001L;

  private final Sql claim;
  private final Sql purgeBatch;
  private final Sql insertScope;
  private final Sql purgeScopes;

  MySqlStatements(String table) {
    super(table);
    this.claim =
        Sql.of(
            "INSERT INTO "
                + table
                + claimColumns()
                + " VALUES "
                + claimValues(
                    "IF(LAST_INSERT_ID("
                        + INSERTED_CODE
                        + ") > 0, "
                        + nowPlus(":lease")
                        + ", NULL)")
                + " ON DUPLICATE KEY UPDATE expires_at = IF(LAST_INSERT_ID("
                + EXISTS_CODE
                + ") = 0, expires_at, expires_at)");
    this.purgeBatch =
        Sql.of("DELETE FROM " + table + " WHERE expires_at <= " + now() + " LIMIT :limit");
    this.insertScope = Sql.of(insertScopeValues() + " ON DUPLICATE KEY UPDATE scope_id = scope_id");
    this.purgeScopes =
        Sql.of("DELETE FROM " + scopeTable() + " WHERE " + orphanScope() + " LIMIT :limit");
  }

  @Override
  public ClaimAnswer claimAnswer() {
    return ClaimAnswer.CODE;
  }

  @Override
  public Sql claim() {
    return claim;
  }

  @Override
  public Inserted inserted(int rows, long code) {
    if (code == INSERTED_CODE && rows == 1) {
      return Inserted.WON;
    }
    return code == EXISTS_CODE || rows == 0 ? Inserted.TAKEN : Inserted.UNKNOWN;
  }

  @Override
  public Sql purgeBatch() {
    return purgeBatch;
  }

  @Override
  public Sql insertScope() {
    return insertScope;
  }

  @Override
  public Sql purgeScopes() {
    return purgeScopes;
  }

  @Override
  public void bindText(PreparedStatement ps, int index, String value) throws SQLException {
    ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String readText(ResultSet rs, int column) throws SQLException {
    byte[] bytes = rs.getBytes(column);
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * Beyond the shared states: a value too long for its column (vendor code 1406, where strict mode
   * is off), a packet the server refused (1153, 1301) or a driver's refusal naming {@code
   * max_allowed_packet}, and a connection dropped (SQLState class 08) while it sent a completion at
   * least {@code max_allowed_packet} long, as the server does with one too large.
   */
  @Override
  public Refusal refusal(SQLException e, long statementBytes, long packetLimit) {
    Refusal shared = super.refusal(e, statementBytes, packetLimit);
    if (shared != Refusal.NONE) {
      return shared;
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException s) {
        if (s.getErrorCode() == 1406) {
          return Refusal.COLUMN_TOO_SMALL;
        }
        if (s.getErrorCode() == 1153 || s.getErrorCode() == 1301) {
          return Refusal.TOO_LARGE;
        }
      }
      String m = t.getMessage();
      if (m != null && m.toLowerCase(Locale.ROOT).contains("max_allowed_packet")) {
        return Refusal.TOO_LARGE;
      }
    }
    boolean dropped = e.getSQLState() != null && e.getSQLState().startsWith("08");
    return dropped && packetLimit > 0 && statementBytes >= packetLimit
        ? Refusal.TOO_LARGE
        : Refusal.NONE;
  }

  @Override
  public String packetLimitQuery() {
    return "SELECT @@max_allowed_packet";
  }

  @Override
  public String tooLargeAdvice(long statementBytes, long packetLimit) {
    return "that is more than the server's max_allowed_packet"
        + (packetLimit > 0 ? " (" + packetLimit + " bytes)" : "")
        + " lets through: raise max_allowed_packet on the server (and the driver's"
        + " maxAllowedPacket, if set) above "
        + statementBytes
        + " bytes, or return a smaller result";
  }

  /**
   * The completion as the drivers send it as text: the outcome with the bytes they escape counted
   * twice, the key's parts likewise, and the rest of the statement.
   */
  @Override
  public long completionBytes(RecordKey key, byte[] outcome) {
    long size = complete().text().length() + 512L + 8L * key.key().length();
    for (byte b : outcome) {
      size += b == 0 || b == '\'' || b == '"' || b == '\\' ? 2 : 1;
    }
    return size;
  }

  @Override
  public boolean schemasAreCatalogs() {
    return true;
  }

  /** A named lock of the server ({@code GET_LOCK}), held by the session until released. */
  @Override
  public String schemaLock(String name, long id, int waitSeconds) {
    return "SELECT GET_LOCK('" + name + "', " + waitSeconds + ")";
  }

  @Override
  public String schemaUnlock(String name) {
    return "SELECT RELEASE_LOCK('" + name + "')";
  }

  @Override
  protected String now() {
    return "UTC_TIMESTAMP(6)";
  }

  @Override
  protected String nowPlus(String param) {
    return "TIMESTAMPADD(MICROSECOND, " + param + ", UTC_TIMESTAMP(6))";
  }

  @Override
  protected String nowMinus(String param) {
    return "TIMESTAMPADD(MICROSECOND, -" + param + ", UTC_TIMESTAMP(6))";
  }

  @Override
  protected String microsUntil(String column) {
    return "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), " + column + ")";
  }

  @Override
  protected String live() {
    return microsUntil("expires_at") + " > 0";
  }

  @Override
  protected String expired() {
    return microsUntil("expires_at") + " <= 0";
  }

  @Override
  protected String oneRowAt(String offsetParam) {
    return " LIMIT 1 OFFSET " + offsetParam;
  }
}
