package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.spi.RecordKey;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The SQL of one dialect for one table, and nothing else: each statement's text, whose named
 * parameters give its bind order ({@link Sql}), how keys are bound and read, and how the database's
 * errors are told apart. {@link dev.idempotent.jdbc.JdbcIdempotencyStore} runs the algorithm over
 * them. Every lease and expiry is computed and compared in SQL, on the database clock; durations
 * are bound as microseconds.
 *
 * <p>The statements here are those every dialect writes the same way from the dialect's expressions
 * for the time ({@link #now()}, {@link #nowPlus}, {@link #microsUntil}); a dialect writes its
 * claim, its purge and its scope insert itself. The tables ({@code schema-<dialect>.sql}): the
 * records, {@code scope_id, idem_key, owner, fingerprint, outcome, expires_at} (an owner while in
 * progress, none and an outcome once completed); {@code <table>_scope}, {@code scope_id, scope,
 * refreshed_at}; {@code <table>_meta}, the format version.
 */
public abstract class SqlStatements {
  /**
   * SQLStates of the integrity constraints that are not a unique key (not null, foreign, check).
   */
  private static final Set<String> OTHER_CONSTRAINTS = Set.of("23502", "23503", "23513", "23514");

  /** How the claim's insert says what it did. */
  public enum ClaimAnswer {
    /**
     * A query: the key's row as it is after the insert, the caller's own claim when it inserted
     * (the owner tells), or no row when the row that holds the key is not visible to it yet.
     */
    ROW,
    /** An update whose generated key is a code, read by {@link #inserted}. */
    CODE,
    /** An update: inserted when it returns; a duplicate key error ({@link #isDuplicateKey}). */
    COUNT
  }

  /** What an insert that answers with a {@link ClaimAnswer#CODE code} did. */
  public enum Inserted {
    WON,
    TAKEN,
    /** It did not say (the code was lost on the way): read the row and see whose it is. */
    UNKNOWN
  }

  /** Why the database refused an outcome, as {@link #refusal} tells it. */
  public enum Refusal {
    /** Not a refusal of the outcome's size. */
    NONE,
    /** A value longer than its column takes. */
    COLUMN_TOO_SMALL,
    /** More than the database takes in one statement or value. */
    TOO_LARGE
  }

  protected final String table;
  private final Sql read;
  private final Sql takeOver;
  private final Sql takeOverOwnerless;
  private final Sql complete;
  private final Sql release;
  private final Sql renew;
  private final Sql delete;
  private final Sql[] walkBound = new Sql[4];
  private final Sql[] walkDelete = new Sql[4];
  private final Sql refreshScope;
  private final Sql readScope;
  private final Sql readFormat;

  /** Builds the shared statements; the expressions it calls read no subclass field. */
  protected SqlStatements(String table) {
    this.table = table;
    String byKey = " WHERE scope_id = :scope_id AND idem_key = :key";
    String owned = byKey + " AND owner = :owner AND " + live();
    this.read = Sql.of(rowColumns() + " FROM " + table + byKey);
    String takeOverSet =
        "UPDATE "
            + table
            + " SET owner = :owner, fingerprint = :fingerprint, outcome = NULL, expires_at = "
            + nowPlus(":lease")
            + byKey;
    this.takeOver = Sql.of(takeOverSet + " AND owner = :previous_owner AND " + expired());
    this.takeOverOwnerless = Sql.of(takeOverSet + " AND owner IS NULL AND " + expired());
    this.complete =
        Sql.of(
            "UPDATE "
                + table
                + " SET owner = NULL, outcome = :outcome, expires_at = "
                + nowPlus(":ttl")
                + owned);
    this.release = Sql.of("DELETE FROM " + table + owned);
    this.renew = Sql.of("UPDATE " + table + " SET expires_at = " + nowPlus(":lease") + owned);
    this.delete = Sql.of("DELETE FROM " + table + byKey + " AND " + live());
    for (int i = 0; i < 4; i++) {
      walkBound[i] = Sql.of(walkBoundText((i & 1) != 0, (i & 2) != 0));
      walkDelete[i] = Sql.of(walkDeleteText((i & 1) != 0, (i & 2) != 0));
    }
    this.refreshScope =
        Sql.of(
            "UPDATE "
                + scopeTable()
                + " SET refreshed_at = "
                + now()
                + " WHERE scope_id = :scope_id AND scope = :scope");
    this.readScope = Sql.of("SELECT scope FROM " + scopeTable() + " WHERE scope_id = :scope_id");
    this.readFormat = Sql.of("SELECT format_version FROM " + metaTable());
  }

  /** The statements of {@code dialect} for {@code table}. */
  public static SqlStatements of(JdbcDialect dialect, String table) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresStatements(table);
      case MARIADB -> new MariaDbStatements(table);
      case MYSQL -> new MySqlStatements(table);
      case H2 -> new H2Statements(table);
    };
  }

  /** The record table. */
  public final String table() {
    return table;
  }

  /** The table of scope texts next to the record table {@code table} (same schema). */
  public final String scopeTable() {
    return table + "_scope";
  }

  /** The table of the format version next to the record table (same schema). */
  public final String metaTable() {
    return table + "_meta";
  }

  /** How {@link #claim()} says what it did. */
  public abstract ClaimAnswer claimAnswer();

  /**
   * Inserts the caller's claim of a key that has no row, and writes nothing when the key has one;
   * says which as {@link #claimAnswer()} tells. Binds (in some order) scope id, key, owner,
   * fingerprint, lease.
   */
  public abstract Sql claim();

  /**
   * Owner, fingerprint, outcome and µs left (negative once expired) of the key's row, live or not.
   */
  public final Sql read() {
    return read;
  }

  /** Replaces an expired row, found by its owner as read, by the caller's claim. */
  public final Sql takeOver() {
    return takeOver;
  }

  /** {@link #takeOver()} of an expired row without an owner: a completed record. */
  public final Sql takeOverOwnerless() {
    return takeOverOwnerless;
  }

  /** Records the outcome of the caller's own live claim, leaving no owner in the row. */
  public final Sql complete() {
    return complete;
  }

  /** Deletes the caller's own live claim. */
  public final Sql release() {
    return release;
  }

  /** Extends the caller's own live claim. */
  public final Sql renew() {
    return renew;
  }

  /** The administrative delete of the key's live row, whatever its owner. */
  public final Sql delete() {
    return delete;
  }

  /** Deletes at most {@code :limit} expired rows, found through the expiry index. */
  public abstract Sql purgeBatch();

  /**
   * The walking purge, on a table without an expiry index: the primary key of the last row of the
   * next chunk, the row at {@code :offset} in primary-key order among those after {@code :after_*}
   * (when {@code after}; else from the start) and not after {@code :up_to_*} (when {@code upTo}).
   * No row: the chunk runs to the end (or to {@code :up_to_*}).
   */
  public final Sql walkBound(boolean after, boolean upTo) {
    return walkBound[(after ? 1 : 0) | (upTo ? 2 : 0)];
  }

  /** The walking purge: deletes the expired rows of the chunk {@link #walkBound} bounded. */
  public final Sql walkDelete(boolean after, boolean upTo) {
    return walkDelete[(after ? 1 : 0) | (upTo ? 2 : 0)];
  }

  /** Sets the scope's {@code refreshed_at} to now, where the id holds this scope's text. */
  public final Sql refreshScope() {
    return refreshScope;
  }

  /** Writes the scope's text under its id, refreshed now, unless the id has a row already. */
  public abstract Sql insertScope();

  /** The text stored under a scope id. */
  public final Sql readScope() {
    return readScope;
  }

  /**
   * Deletes at most {@code :limit} rows of the scope table that no record has and that have gone
   * unrefreshed for {@code :age}.
   */
  public abstract Sql purgeScopes();

  /** The format versions the meta table holds. */
  public final Sql readFormat() {
    return readFormat;
  }

  /**
   * A query that takes the lock under which {@code createTable(true)} creates the tables, named
   * {@code name} (letters, digits, {@code -} and {@code :}) or numbered {@code id}, waiting at most
   * {@code waitSeconds}: its one row's first column is 1 once the lock is held, anything else when
   * it is not. {@code null} where the database offers no such lock. The lock ends with the
   * transaction, or with {@link #schemaUnlock}.
   */
  public String schemaLock(String name, long id, int waitSeconds) {
    return null;
  }

  /**
   * The statement that gives up the lock of {@link #schemaLock}; {@code null} where it ends with
   * the transaction.
   */
  public String schemaUnlock(String name) {
    return null;
  }

  /** Binds a key or a scope text. */
  public void bindText(PreparedStatement ps, int index, String value) throws SQLException {
    ps.setString(index, value);
  }

  /** Reads a key or a scope text bound by {@link #bindText}. */
  public String readText(ResultSet rs, int column) throws SQLException {
    return rs.getString(column);
  }

  /**
   * {@link ClaimAnswer#CODE}: what an insert that changed {@code rows} and gave {@code code} did.
   */
  public Inserted inserted(int rows, long code) {
    throw new UnsupportedOperationException("the claim of " + getClass().getSimpleName());
  }

  /**
   * Whether {@code e} is a duplicate key: an integrity constraint violation (SQLState class 23)
   * that is not one of the standard states of another constraint (not null, foreign key, check).
   */
  public boolean isDuplicateKey(SQLException e) {
    String state = e.getSQLState();
    return state != null && state.startsWith("23") && !OTHER_CONSTRAINTS.contains(state);
  }

  /** Whether {@code e} says that the table, or one next to it, is not there. */
  public boolean isMissingTable(SQLException e) {
    return StoreConnections.isMissingTable(e);
  }

  /**
   * Whether the database refused an outcome for its size: SQLState 22001 (a value too long for its
   * column) or 54000 (a limit); a dialect adds its own signs.
   */
  public Refusal refusal(SQLException e, long statementBytes, long packetLimit) {
    for (SQLException s = e; s != null; s = s.getNextException()) {
      if ("22001".equals(s.getSQLState())) {
        return Refusal.COLUMN_TOO_SMALL;
      }
      if ("54000".equals(s.getSQLState())) {
        return Refusal.TOO_LARGE;
      }
    }
    return Refusal.NONE;
  }

  /**
   * The query of the size of the largest statement the server takes; {@code null} where there is no
   * such limit below the column's.
   */
  public String packetLimitQuery() {
    return null;
  }

  /** What to tell the operator about a {@link Refusal#TOO_LARGE} outcome. */
  public String tooLargeAdvice(long statementBytes, long packetLimit) {
    return "that is more than the database takes in one value: return a smaller result";
  }

  /** The bytes of the completion of {@code outcome} as sent, where a dialect knows it; else 0. */
  public long completionBytes(RecordKey key, byte[] outcome) {
    return 0;
  }

  /** Whether the database's metadata names a schema as a catalog (MySQL/MariaDB). */
  public boolean schemasAreCatalogs() {
    return false;
  }

  /** The current time of the database, as an SQL expression. */
  protected abstract String now();

  /** The current time of the database plus the µs bound to {@code param}. */
  protected abstract String nowPlus(String param);

  /** The current time of the database less the µs bound to {@code param}. */
  protected abstract String nowMinus(String param);

  /** The µs from now until {@code column}, negative once passed. */
  protected abstract String microsUntil(String column);

  /** The condition of a row, found by its primary key, that has not expired. */
  protected String live() {
    return "expires_at > " + now();
  }

  /** The condition of a row, found by its primary key, that has expired. */
  protected String expired() {
    return "expires_at <= " + now();
  }

  /** {@code SELECT} of the columns a claim and a read answer with: owner to µs left. */
  protected final String rowColumns() {
    return "SELECT " + rowValues();
  }

  /** The columns a claim and a read answer with, in the order the store reads them. */
  protected final String rowValues() {
    return "owner, fingerprint, outcome, " + microsUntil("expires_at");
  }

  /** The values of a new claim, in the order of {@link #claimColumns()}. */
  protected final String claimValues(String expiresAt) {
    return "(:scope_id, :key, :owner, :fingerprint, " + expiresAt + ")";
  }

  /** The columns a new claim writes. */
  protected final String claimColumns() {
    return " (scope_id, idem_key, owner, fingerprint, expires_at)";
  }

  /** The scope's insert without its conflict clause. */
  protected final String insertScopeValues() {
    return "INSERT INTO "
        + scopeTable()
        + " (scope_id, scope, refreshed_at) VALUES (:scope_id, :scope, "
        + now()
        + ")";
  }

  /** The condition of a scope row without records, unrefreshed for {@code :age}. */
  protected final String orphanScope() {
    return "refreshed_at < "
        + nowMinus(":age")
        + " AND NOT EXISTS (SELECT 1 FROM "
        + table
        + " r WHERE r.scope_id = "
        + scopeTable()
        + ".scope_id)";
  }

  /**
   * The conditions of the rows after {@code :after_*} (when {@code after}) and up to {@code
   * :up_to_*}.
   */
  private String walkRange(boolean after, boolean upTo) {
    List<String> range = new ArrayList<>();
    if (after) {
      range.add(keyAfter(":after_scope_id", ":after_key"));
    }
    if (upTo) {
      range.add(keyNotAfter(":up_to_scope_id", ":up_to_key"));
    }
    return String.join(" AND ", range);
  }

  /**
   * The text of {@link #walkBound}: by default the range's rows in order, the one at the offset.
   */
  protected String walkBoundText(boolean after, boolean upTo) {
    String range = walkRange(after, upTo);
    return "SELECT scope_id, idem_key FROM "
        + table
        + (range.isEmpty() ? "" : " WHERE " + range)
        + " ORDER BY scope_id, idem_key"
        + oneRowAt(":offset");
  }

  /** The text of {@link #walkDelete}: by default the expired rows of the range. */
  protected String walkDeleteText(boolean after, boolean upTo) {
    String range = walkRange(after, upTo);
    return "DELETE FROM "
        + table
        + " WHERE "
        + (range.isEmpty() ? "" : range + " AND ")
        + "expires_at <= "
        + now();
  }

  /**
   * A row whose primary key comes after the one bound to the parameters. By default written out,
   * {@code scope_id >= a AND (scope_id > a OR (scope_id = a AND idem_key > k))}, which the
   * optimizer reads as a range of the primary key.
   */
  protected String keyAfter(String idParam, String keyParam) {
    return "scope_id >= "
        + idParam
        + " AND (scope_id > "
        + idParam
        + " OR (scope_id = "
        + idParam
        + " AND idem_key > "
        + keyParam
        + "))";
  }

  /** A row whose primary key is not after the one bound to the parameters. */
  protected String keyNotAfter(String idParam, String keyParam) {
    return "scope_id <= "
        + idParam
        + " AND (scope_id < "
        + idParam
        + " OR (scope_id = "
        + idParam
        + " AND idem_key <= "
        + keyParam
        + "))";
  }

  /** The clause, after an {@code ORDER BY}, that keeps only the row at {@code offsetParam}. */
  protected String oneRowAt(String offsetParam) {
    return " OFFSET " + offsetParam + " ROWS FETCH NEXT 1 ROWS ONLY";
  }
}
