package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcDialect;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements of one dialect for one table, and nothing else: for each operation its SQL text,
 * whose named parameters ({@code :scope}, {@code :lease}, ...) give its bind order, how scopes and
 * keys are bound, and what the fresh-key insert answered. {@link IdempotencyTable} runs them. All
 * lease and expiry arithmetic happens in SQL on the database clock; durations are bound as
 * microseconds.
 *
 * <p>Two table layouts ({@link Layout}): the compact one of the shipped DDL, {@code scope_id,
 * idem_key, status, owner, fingerprint, outcome, expires_at} with the scope text once per scope in
 * {@code <table>_scope}, and the layout of earlier versions, {@code scope, idem_key, status, owner,
 * fingerprint, outcome, expires_at, created_at, updated_at}, which the store keeps using where it
 * finds it.
 */
public abstract class DialectStatements {
  /** The status of a claim. */
  public static final String IN_PROGRESS = "IN_PROGRESS";

  /** What the fresh-key insert answered. */
  public enum Inserted {
    /** It inserted this caller's claim. */
    WON,
    /** It found the key taken and wrote nothing. */
    TAKEN,
    /** It ran, but did not say which: read the row to see whose it is. */
    UNKNOWN
  }

  /** A value a statement binds. {@code LEASE} and {@code TTL} are microseconds. */
  public enum Param {
    SCOPE,
    SCOPE_ID,
    KEY,
    OWNER,
    FINGERPRINT,
    LEASE,
    TTL,
    OUTCOME,
    PREVIOUS_OWNER,
    LIMIT,
    /** The walking purge: the primary key the chunk starts after, as the database returned it. */
    AFTER_SCOPE,
    AFTER_KEY,
    /** The walking purge: the last primary key of the chunk, as the database returned it. */
    UP_TO_SCOPE,
    UP_TO_KEY,
    /** The walking purge: the chunk's size less one, the offset of its last row. */
    OFFSET
  }

  /** The layout of a record table. */
  public enum Layout {
    /**
     * The shipped DDL: the scope as a {@link ScopeIds 32- or 64-bit id} in every row and in the
     * primary key, its text once in {@code <table>_scope}; the status as a code ({@value
     * #IN_PROGRESS_CODE} in progress, {@value #COMPLETED_CODE} completed); no creation or update
     * times.
     */
    COMPACT,
    /**
     * Earlier versions: the scope text in every row and in the primary key, status names, two more
     * times.
     */
    LEGACY;

    /** The status code of a claim in the compact layout. */
    public static final int IN_PROGRESS_CODE = 1;

    /** The status code of a completed record in the compact layout. */
    public static final int COMPLETED_CODE = 2;
  }

  /** One statement: its text with {@code ?} placeholders and the values they bind, in order. */
  public record Sql(String text, List<Param> params) {
    private static final Pattern NAMED = Pattern.compile("(?<![:\\w]):([a-z_]+)");

    /**
     * The statement written with named parameters ({@code :scope}), each one turned into a {@code
     * ?}.
     */
    static Sql of(String named) {
      List<Param> params = new ArrayList<>();
      Matcher m = NAMED.matcher(named);
      StringBuilder text = new StringBuilder();
      while (m.find()) {
        params.add(Param.valueOf(m.group(1).toUpperCase(Locale.ROOT)));
        m.appendReplacement(text, "?");
      }
      m.appendTail(text);
      return new Sql(text.toString(), List.copyOf(params));
    }
  }

  protected final String table;
  protected final Layout layout;
  private final ScopeIds.Width scopeIdWidth;
  private final Sql insertClaim;
  private final Sql read;
  private final Sql takeOver;
  private final Sql takeOverCompleted;
  private final Sql complete;
  private final Sql release;
  private final Sql renew;
  private final Sql delete;
  private final Sql purgeBatch;

  /** The walking purge's statements, by {@link #walkIndex}. */
  private final Sql[] walkBound = new Sql[4];

  private final Sql[] walkDelete = new Sql[4];

  private final Sql insertScope;
  private final Sql readScope;

  /**
   * Builds every statement once; the fragment methods below are called here, so they read no
   * subclass field.
   */
  protected DialectStatements(String table, Layout layout, ScopeIds.Width scopeIdWidth) {
    this.table = table;
    this.layout = layout;
    this.scopeIdWidth = scopeIdWidth;
    boolean legacy = layout == Layout.LEGACY;
    String byKey =
        legacy
            ? " WHERE scope = :scope AND idem_key = :key"
            : " WHERE scope_id = :scope_id AND idem_key = :key";
    String stamp = legacy ? ", updated_at = " + now() : "";
    String owned = byKey + " AND owner = :owner AND status = " + inProgress() + " AND " + live();
    this.insertClaim = Sql.of(insertClaimText());
    this.read =
        Sql.of(
            "SELECT status, owner, fingerprint, outcome, "
                + microsUntil("expires_at")
                + " FROM "
                + table
                + byKey);
    String takeOverSet =
        "UPDATE "
            + table
            + " SET status = "
            + inProgress()
            + ", owner = :owner,"
            + " fingerprint = :fingerprint, outcome = NULL, expires_at = "
            + nowPlus(":lease")
            + (legacy ? ", created_at = " + now() : "")
            + stamp
            + byKey;
    this.takeOver = Sql.of(takeOverSet + " AND owner = :previous_owner AND " + expired());
    // the compact layout keeps no owner in a completed row (the contract allows it): it is claimed
    // again by the one update that still finds it ownerless and expired (a claim always has an
    // owner, so that is a completed row, or an expired row this store did not write)
    this.takeOverCompleted = Sql.of(takeOverSet + " AND owner IS NULL AND " + expired());
    this.complete =
        Sql.of(
            "UPDATE "
                + table
                + " SET status = "
                + (legacy ? "'COMPLETED'" : Layout.COMPLETED_CODE)
                + (legacy ? "" : ", owner = NULL")
                + ", outcome = :outcome, expires_at = "
                + nowPlus(":ttl")
                + stamp
                + owned);
    this.release = Sql.of("DELETE FROM " + table + owned);
    this.renew =
        Sql.of("UPDATE " + table + " SET expires_at = " + nowPlus(":lease") + stamp + owned);
    this.delete = Sql.of("DELETE FROM " + table + byKey + " AND " + live());
    this.purgeBatch = Sql.of(purgeBatchText());
    for (int i = 0; i < 4; i++) {
      boolean after = (i & 1) != 0;
      boolean upTo = (i & 2) != 0;
      walkBound[i] = Sql.of(walkBoundText(after, upTo));
      walkDelete[i] = Sql.of(walkDeleteText(after, upTo));
    }
    this.insertScope = Sql.of(insertScopeText());
    this.readScope =
        Sql.of("SELECT scope FROM " + scopeTable(table) + " WHERE scope_id = :scope_id");
  }

  /** The compact layout's statements for {@code table}, with 64-bit scope ids. */
  public static DialectStatements of(JdbcDialect dialect, String table) {
    return of(dialect, table, Layout.COMPACT, ScopeIds.Width.BITS_64);
  }

  /** The statements for {@code table} in {@code layout}, with 64-bit scope ids. */
  public static DialectStatements of(JdbcDialect dialect, String table, Layout layout) {
    return of(dialect, table, layout, ScopeIds.Width.BITS_64);
  }

  /**
   * The statements for {@code table} in {@code layout}, binding scope ids of {@code scopeIdWidth}
   * (the compact layout; the earlier one binds the scope text).
   */
  public static DialectStatements of(
      JdbcDialect dialect, String table, Layout layout, ScopeIds.Width scopeIdWidth) {
    return switch (dialect) {
      case POSTGRESQL -> new Postgres(table, layout, scopeIdWidth);
      case MYSQL -> new MySql(table, layout, scopeIdWidth);
      case H2 -> new H2(table, layout, scopeIdWidth);
    };
  }

  /**
   * The table holding each scope's text once, next to the record table {@code table} (same schema).
   */
  public static String scopeTable(String table) {
    return table + "_scope";
  }

  /** The layout these statements are for. */
  public Layout layout() {
    return layout;
  }

  /** The width of the scope ids these statements bind, that of the table's {@code scope_id}. */
  public ScopeIds.Width scopeIdWidth() {
    return scopeIdWidth;
  }

  /**
   * Binds the id of {@code scope} at {@link #scopeIdWidth()}: as an {@code INTEGER} or a {@code
   * BIGINT}, the type of the column.
   */
  public void bindScopeId(PreparedStatement ps, int index, String scope) throws SQLException {
    long id = scopeIdWidth.of(scope);
    if (scopeIdWidth == ScopeIds.Width.BITS_32) {
      ps.setInt(index, (int) id);
    } else {
      ps.setLong(index, id);
    }
  }

  /** Whether {@code status}, as read by {@link #read()}, is that of a completed record. */
  public boolean isCompleted(String status) {
    return layout == Layout.LEGACY
        ? "COMPLETED".equals(status)
        : String.valueOf(Layout.COMPLETED_CODE).equals(status);
  }

  /** Whether {@code status}, as read by {@link #read()}, is that of a claim in progress. */
  public boolean isInProgress(String status) {
    return layout == Layout.LEGACY
        ? IN_PROGRESS.equals(status)
        : String.valueOf(Layout.IN_PROGRESS_CODE).equals(status);
  }

  /** The status of a claim, as an SQL literal of the layout. */
  protected String inProgress() {
    return layout == Layout.LEGACY ? "'IN_PROGRESS'" : String.valueOf(Layout.IN_PROGRESS_CODE);
  }

  /** The columns that name a record: {@code scope} or {@code scope_id}, then {@code idem_key}. */
  protected String keyColumns() {
    return layout == Layout.LEGACY ? "scope, idem_key" : "scope_id, idem_key";
  }

  /**
   * Compact layout: writes a scope's text unless its id is there already. Binds scope id, scope.
   */
  public Sql insertScope() {
    return insertScope;
  }

  /** Compact layout: the scope text stored for an id. Binds scope id. */
  public Sql readScope() {
    return readScope;
  }

  /**
   * Inserts a new claim of a key whose record is missing, and writes nothing when the key is taken.
   * Binds scope, key, owner, fingerprint, lease.
   */
  public Sql insertClaim() {
    return insertClaim;
  }

  /**
   * Status, owner, fingerprint, outcome and microseconds left (negative once expired) of the
   * record, live or not. Binds scope, key.
   */
  public Sql read() {
    return read;
  }

  /**
   * Replaces an expired record, found by its owner as read, by a new claim; changes one row or
   * none, whatever the driver counts, since the owner changes. Binds owner, fingerprint, lease,
   * scope, key, previous owner.
   */
  public Sql takeOver() {
    return takeOver;
  }

  /**
   * The takeover of an expired row that keeps no owner: a completed row of the compact layout, or a
   * row this store did not write.
   */
  public Sql takeOverCompleted() {
    return takeOverCompleted;
  }

  /** Records the outcome of the caller's own live claim. Binds outcome, ttl, scope, key, owner. */
  public Sql complete() {
    return complete;
  }

  /** Deletes the caller's own live claim. Binds scope, key, owner. */
  public Sql release() {
    return release;
  }

  /** Extends the caller's own live claim. Binds lease, scope, key, owner. */
  public Sql renew() {
    return renew;
  }

  /**
   * The administrative delete of the live record, whatever its status and owner. Binds scope, key.
   */
  public Sql delete() {
    return delete;
  }

  /** Deletes at most {@code :limit} expired rows, found through an index on the expiry. */
  public Sql purgeBatch() {
    return purgeBatch;
  }

  /**
   * The walking purge, for a table without an index on the expiry: the primary key of the last row
   * of the next chunk, the row at {@code :offset} in primary-key order among those after {@code
   * :after_scope, :after_key} (when {@code after}; else from the start of the table) and not after
   * {@code :up_to_scope, :up_to_key} (when {@code upTo}; else to its end). No row: the chunk runs
   * to the end (or to {@code :up_to}). The keys are bound as the database returned them, and
   * compared in SQL, in the order of the primary key.
   */
  public Sql walkBound(boolean after, boolean upTo) {
    return walkBound[walkIndex(after, upTo)];
  }

  /**
   * The walking purge: deletes the expired rows (by the same test as {@link #purgeBatch()}) after
   * {@code :after_scope, :after_key} (when {@code after}) and not after {@code :up_to_scope,
   * :up_to_key} (when {@code upTo}).
   */
  public Sql walkDelete(boolean after, boolean upTo) {
    return walkDelete[walkIndex(after, upTo)];
  }

  /** The first column of the primary key. */
  protected final String firstKeyColumn() {
    return layout == Layout.LEGACY ? "scope" : "scope_id";
  }

  /**
   * The conditions of the rows after {@code :after} (when {@code after}) and up to {@code :up_to}.
   */
  private String walkRange(boolean after, boolean upTo) {
    List<String> range = new ArrayList<>();
    if (after) {
      range.add(keyAfter(firstKeyColumn(), ":after_scope", ":after_key"));
    }
    if (upTo) {
      range.add(keyNotAfter(firstKeyColumn(), ":up_to_scope", ":up_to_key"));
    }
    return String.join(" AND ", range);
  }

  /**
   * The text of {@link #walkBound}: by default the range's rows, in order, the one at the offset.
   */
  protected String walkBoundText(boolean after, boolean upTo) {
    String range = walkRange(after, upTo);
    return "SELECT "
        + keyColumns()
        + " FROM "
        + table
        + (range.isEmpty() ? "" : " WHERE " + range)
        + " ORDER BY "
        + keyColumns()
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

  private static int walkIndex(boolean after, boolean upTo) {
    return (after ? 1 : 0) | (upTo ? 2 : 0);
  }

  /**
   * The condition of a row whose primary key ({@code first}, {@code idem_key}) comes after the one
   * bound to {@code firstParam, keyParam}. By default written out, {@code first > a OR (first = a
   * AND idem_key > k)}, after a bound on {@code first} alone, so that the optimizer reads it as a
   * range of the primary key.
   */
  protected String keyAfter(String first, String firstParam, String keyParam) {
    return keyBeyond(first, firstParam, keyParam, ">");
  }

  /** The condition of a row whose primary key is not after the one bound to the parameters. */
  protected String keyNotAfter(String first, String firstParam, String keyParam) {
    return keyBeyond(first, firstParam, keyParam, "<");
  }

  /**
   * {@code first >= a AND (first > a OR (first = a AND idem_key > k))} for {@code ">"}, and the
   * mirror image, {@code idem_key <= k} included, for {@code "<"}.
   */
  private static String keyBeyond(String first, String firstParam, String keyParam, String op) {
    String keyOp = op.equals(">") ? ">" : "<=";
    return first
        + " "
        + op
        + "= "
        + firstParam
        + " AND ("
        + first
        + " "
        + op
        + " "
        + firstParam
        + " OR ("
        + first
        + " = "
        + firstParam
        + " AND idem_key "
        + keyOp
        + " "
        + keyParam
        + "))";
  }

  /** The clause, after an {@code ORDER BY}, that keeps only the row at {@code offsetParam}. */
  protected String oneRowAt(String offsetParam) {
    return " OFFSET " + offsetParam + " ROWS FETCH NEXT 1 ROWS ONLY";
  }

  /** Binds a scope or key. */
  public void bindKeyPart(PreparedStatement ps, int index, String value) throws SQLException {
    ps.setString(index, value);
  }

  /** Whether the fresh-key insert reports a code, read as its generated key. */
  public boolean insertReportsCode() {
    return false;
  }

  /**
   * The answer of a fresh-key insert that changed {@code rowCount} rows and reported {@code code}
   * (-1: none).
   */
  public abstract Inserted inserted(int rowCount, long code);

  /**
   * Whether the fresh-key insert failed with {@code e} because the key is taken. By default it
   * never does.
   */
  public boolean isDuplicateKey(SQLException e) {
    return false;
  }

  /** The current time of the database, as an SQL expression. */
  protected abstract String now();

  /** The current time of the database plus the microseconds bound to {@code param}. */
  protected abstract String nowPlus(String param);

  /** Microseconds from now until {@code column} (negative once passed). */
  protected abstract String microsUntil(String column);

  /** The condition of a record, found by its primary key, that has not expired. */
  protected String live() {
    return "expires_at > " + now();
  }

  /** The condition of a record, found by its primary key, that has expired. */
  protected String expired() {
    return "expires_at <= " + now();
  }

  /** The text of {@link #insertClaim()}. */
  protected abstract String insertClaimText();

  /** The text of {@link #purgeBatch()}. */
  protected abstract String purgeBatchText();

  /** The text of {@link #insertScope()}. */
  protected abstract String insertScopeText();

  /**
   * {@code INSERT} of a new claim whose status column is {@code status}; a dialect appends its
   * conflict clause.
   */
  protected String insertInto(String status) {
    if (layout == Layout.LEGACY) {
      return "INSERT INTO "
          + table
          + " (scope, idem_key, status, owner, fingerprint, outcome, expires_at,"
          + " created_at, updated_at) VALUES (:scope, :key, "
          + status
          + ", :owner, :fingerprint, NULL, "
          + nowPlus(":lease")
          + ", "
          + now()
          + ", "
          + now()
          + ")";
    }
    return "INSERT INTO "
        + table
        + " (scope_id, idem_key, status, owner, fingerprint, expires_at) VALUES"
        + " (:scope_id, :key, "
        + status
        + ", :owner, :fingerprint, "
        + nowPlus(":lease")
        + ")";
  }

  /**
   * PostgreSQL: {@code INSERT ... ON CONFLICT DO NOTHING}, one row when it won and none when the
   * key is taken (no error, so a caller's transaction would stay usable). {@code
   * statement_timestamp()} is the database time at the start of the statement, also inside a
   * transaction.
   */
  static final class Postgres extends DialectStatements {
    Postgres(String table, Layout layout, ScopeIds.Width scopeIdWidth) {
      super(table, layout, scopeIdWidth);
    }

    @Override
    public Inserted inserted(int rowCount, long code) {
      return rowCount == 1 ? Inserted.WON : Inserted.TAKEN;
    }

    @Override
    protected String now() {
      return "statement_timestamp()";
    }

    @Override
    protected String nowPlus(String param) {
      return "(statement_timestamp() + CAST(" + param + " AS BIGINT) * INTERVAL '1 microsecond')";
    }

    @Override
    protected String microsUntil(String column) {
      return "CAST(EXTRACT(EPOCH FROM ("
          + column
          + " - statement_timestamp())) * 1000000 AS BIGINT)";
    }

    @Override
    protected String insertClaimText() {
      return insertInto(inProgress()) + " ON CONFLICT (" + keyColumns() + ") DO NOTHING";
    }

    /**
     * {@code ctid = ANY(ARRAY(...))} is a TID scan; the outer condition skips rows renewed since
     * the inner select. The compact layout indexes the expiry by the second ({@link
     * #EXPIRY_SECOND}), so that one index entry, deduplicated, serves all the rows that expire in
     * the same second; the inner select finds them by it, oldest first (the order makes the planner
     * read the index even where its statistics overestimate the expired rows, where it would
     * otherwise scan the table until it found enough).
     */
    @Override
    protected String purgeBatchText() {
      String expiredHere =
          layout == Layout.LEGACY
              ? "expires_at <= " + now()
              : EXPIRY_SECOND
                  + " <= date_trunc('second', "
                  + now()
                  + " AT TIME ZONE 'UTC') AND expires_at <= "
                  + now()
                  + " ORDER BY "
                  + EXPIRY_SECOND;
      return "DELETE FROM "
          + table
          + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM "
          + table
          + " WHERE "
          + expiredHere
          + " LIMIT :limit)) AND expires_at <= "
          + now();
    }

    /**
     * A row-value comparison, which PostgreSQL reads as one range of the primary key; the form
     * written out would bound only its first column, and filter the rest of that scope's rows.
     */
    @Override
    protected String keyAfter(String first, String firstParam, String keyParam) {
      return "(" + first + ", idem_key) > (" + firstParam + ", " + keyParam + ")";
    }

    @Override
    protected String keyNotAfter(String first, String firstParam, String keyParam) {
      return "(" + first + ", idem_key) <= (" + firstParam + ", " + keyParam + ")";
    }

    /**
     * The chunk's rows as the next {@code :limit} of the primary key after {@code :after}, found by
     * ctid, and of them the expired ones up to {@code :up_to}. PostgreSQL (15 at least) stops an
     * index scan at a row-value upper bound only at its first column, so a range bounded by {@code
     * <= :up_to} in the scan would read on to the end of that scope (the rest of the table, with
     * one scope): the {@code LIMIT} ends the scan instead, and the bound only filters.
     */
    @Override
    protected String walkDeleteText(boolean after, boolean upTo) {
      String first = firstKeyColumn();
      return "DELETE FROM "
          + table
          + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM "
          + table
          + (after ? " WHERE " + keyAfter(first, ":after_scope", ":after_key") : "")
          + " ORDER BY "
          + keyColumns()
          + " LIMIT :limit))"
          + (upTo ? " AND " + keyNotAfter(first, ":up_to_scope", ":up_to_key") : "")
          + " AND expires_at <= "
          + now();
    }

    /**
     * The row at the offset after {@code :after}, kept only when it is not after {@code :up_to}:
     * the offset ends the scan, the bound filters (see {@link #walkDeleteText}).
     */
    @Override
    protected String walkBoundText(boolean after, boolean upTo) {
      String first = firstKeyColumn();
      String next =
          "SELECT "
              + keyColumns()
              + " FROM "
              + table
              + (after ? " WHERE " + keyAfter(first, ":after_scope", ":after_key") : "")
              + " ORDER BY "
              + keyColumns()
              + oneRowAt(":offset");
      if (!upTo) {
        return next;
      }
      return "SELECT "
          + keyColumns()
          + " FROM ("
          + next
          + ") chunk_end WHERE "
          + keyNotAfter(first, ":up_to_scope", ":up_to_key");
    }

    /** The indexed expression of the compact layout's expiry index (see schema-postgresql.sql). */
    static final String EXPIRY_SECOND = "date_trunc('second', expires_at AT TIME ZONE 'UTC')";

    @Override
    protected String insertScopeText() {
      return "INSERT INTO "
          + scopeTable(table)
          + " (scope_id, scope) VALUES (:scope_id, :scope)"
          + " ON CONFLICT (scope_id) DO NOTHING";
    }
  }

  /**
   * MySQL 8+ and MariaDB 10.6+. The fresh-key insert is an {@code INSERT ... ON DUPLICATE KEY
   * UPDATE} whose update clause changes nothing, so a taken key raises no error (a duplicate-key
   * error would be logged, key and all, by the MariaDB driver). Its row count cannot tell a
   * duplicate from an insert on connections that count found rows (both drivers' default), so it
   * says what it did through {@code LAST_INSERT_ID(expr)}, which the server returns in the OK
   * packet and JDBC as the generated key: its values set {@link #INSERTED_CODE}, and its update
   * clause, which runs only on a duplicate, overrides it with {@link #EXISTS_CODE}. Won only on the
   * inserted code with one row; taken on the exists code or on 0 rows (nothing was inserted,
   * whatever the setting); anything else, as where a proxy drops the code, is unknown.
   *
   * <p>Keyed statements test expiry as {@code TIMESTAMPDIFF(...)}, which no index serves: given
   * {@code expires_at > now}, the optimizer estimates that open range on the expiry index on every
   * statement before it settles on the primary key. Scope and key are {@code VARBINARY} bound as
   * UTF-8 bytes, so comparisons are exact.
   */
  static final class MySql extends DialectStatements {
    /**
     * The codes of a fresh-key insert that inserted, and that found the key taken. Far above any
     * value an {@code AUTO_INCREMENT} column added to the table could reach, so an insert id is
     * never taken for either.
     */
    static final long INSERTED_CODE = 0x7E5A_1D3C_0000_0002L;

    static final long EXISTS_CODE = 0x7E5A_1D3C_0000_0001L;

    MySql(String table, Layout layout, ScopeIds.Width scopeIdWidth) {
      super(table, layout, scopeIdWidth);
    }

    @Override
    public void bindKeyPart(PreparedStatement ps, int index, String value) throws SQLException {
      ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean insertReportsCode() {
      return true;
    }

    @Override
    public Inserted inserted(int rowCount, long code) {
      if (code == INSERTED_CODE && rowCount == 1) {
        return Inserted.WON;
      }
      return code == EXISTS_CODE || rowCount == 0 ? Inserted.TAKEN : Inserted.UNKNOWN;
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
    protected String insertClaimText() {
      String unchanged = layout == Layout.LEGACY ? "updated_at" : "expires_at";
      return insertInto(
              "IF(LAST_INSERT_ID("
                  + INSERTED_CODE
                  + ") > 0, "
                  + inProgress()
                  + ", "
                  + inProgress()
                  + ")")
          + " ON DUPLICATE KEY UPDATE "
          + unchanged
          + " = IF(LAST_INSERT_ID("
          + EXISTS_CODE
          + ") = 0, "
          + unchanged
          + ", "
          + unchanged
          + ")";
    }

    @Override
    protected String insertScopeText() {
      return "INSERT INTO "
          + scopeTable(table)
          + " (scope_id, scope) VALUES (:scope_id, :scope)"
          + " ON DUPLICATE KEY UPDATE scope_id = scope_id";
    }

    @Override
    protected String purgeBatchText() {
      return "DELETE FROM " + table + " WHERE expires_at <= UTC_TIMESTAMP(6) LIMIT :limit";
    }

    @Override
    protected String oneRowAt(String offsetParam) {
      return " LIMIT 1 OFFSET " + offsetParam;
    }
  }

  /**
   * H2 2.x, for tests and demos: a plain insert, whose duplicate-key error (SQLState 23505) says
   * "taken".
   */
  static final class H2 extends DialectStatements {
    H2(String table, Layout layout, ScopeIds.Width scopeIdWidth) {
      super(table, layout, scopeIdWidth);
    }

    @Override
    public Inserted inserted(int rowCount, long code) {
      return Inserted.WON;
    }

    @Override
    public boolean isDuplicateKey(SQLException e) {
      return "23505".equals(e.getSQLState());
    }

    @Override
    protected String now() {
      return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    protected String nowPlus(String param) {
      return "DATEADD(MICROSECOND, CAST(" + param + " AS BIGINT), CURRENT_TIMESTAMP(6))";
    }

    @Override
    protected String microsUntil(String column) {
      return "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), " + column + ")";
    }

    @Override
    protected String insertClaimText() {
      return insertInto(inProgress());
    }

    /**
     * A plain insert: its duplicate-key error, which {@link #isDuplicateKey} recognises, means
     * already there.
     */
    @Override
    protected String insertScopeText() {
      return "INSERT INTO " + scopeTable(table) + " (scope_id, scope) VALUES (:scope_id, :scope)";
    }

    @Override
    protected String purgeBatchText() {
      return "DELETE FROM "
          + table
          + " WHERE expires_at <= "
          + now()
          + " FETCH FIRST :limit ROWS ONLY";
    }
  }
}
