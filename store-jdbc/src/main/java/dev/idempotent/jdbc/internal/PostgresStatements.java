package dev.idempotent.jdbc.internal;

/**
 * PostgreSQL 9.5 or later. The claim is an {@code INSERT ... ON CONFLICT DO NOTHING} that returns
 * the row it inserted, and no row when the key has one (which the store then reads, or has read
 * first, see {@link ClaimOrder}): the statement a hand-written claim sends, at the same cost. No
 * error on a taken key, so a caller's transaction stays usable. {@code statement_timestamp()} is
 * the database time at the start of the statement, also inside a transaction.
 */
final class PostgresStatements extends SqlStatements {
  /** The indexed expression of the expiry index (schema-postgresql.sql): the expiry's second. */
  static final String EXPIRY_SECOND = "date_trunc('second', expires_at AT TIME ZONE 'UTC')";

  private final Sql claim;
  private final Sql purgeBatch;
  private final Sql insertScope;
  private final Sql purgeScopes;

  PostgresStatements(String table) {
    super(table);
    this.claim =
        Sql.of(
            "INSERT INTO "
                + table
                + claimColumns()
                + " VALUES "
                + claimValues(nowPlus(":lease"))
                + " ON CONFLICT (scope_id, idem_key) DO NOTHING RETURNING "
                + rowValues());
    // ctid = ANY(ARRAY(...)) is a TID scan; the outer condition skips rows renewed since the inner
    // select. The inner select reads the expiry index by the second, oldest first: the order keeps
    // the planner on the index where its statistics overestimate the expired rows.
    this.purgeBatch =
        Sql.of(
            "DELETE FROM "
                + table
                + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM "
                + table
                + " WHERE "
                + EXPIRY_SECOND
                + " <= date_trunc('second', "
                + now()
                + " AT TIME ZONE 'UTC') AND expires_at <= "
                + now()
                + " ORDER BY "
                + EXPIRY_SECOND
                + " LIMIT :limit)) AND expires_at <= "
                + now());
    this.insertScope = Sql.of(insertScopeValues() + " ON CONFLICT (scope_id) DO NOTHING");
    this.purgeScopes =
        Sql.of(
            "DELETE FROM "
                + scopeTable()
                + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM "
                + scopeTable()
                + " WHERE "
                + orphanScope()
                + " LIMIT :limit)) AND "
                + orphanScope());
  }

  @Override
  public ClaimAnswer claimAnswer() {
    return ClaimAnswer.ROW;
  }

  @Override
  public Sql claim() {
    return claim;
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

  /**
   * A transaction-scoped advisory lock: it ends with the transaction that creates the tables, so
   * nothing is left to release; its wait is bounded by the statement's timeout.
   */
  @Override
  public String schemaLock(String name, long id, int waitSeconds) {
    return "SELECT 1 FROM pg_advisory_xact_lock(" + id + ")";
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
  protected String nowMinus(String param) {
    return "(statement_timestamp() - CAST(" + param + " AS BIGINT) * INTERVAL '1 microsecond')";
  }

  @Override
  protected String microsUntil(String column) {
    return "CAST(EXTRACT(EPOCH FROM (" + column + " - statement_timestamp())) * 1000000 AS BIGINT)";
  }

  /**
   * A row-value comparison, which PostgreSQL reads as one range of the primary key; written out, it
   * would bound only {@code scope_id} and filter the rest of that scope's rows.
   */
  @Override
  protected String keyAfter(String idParam, String keyParam) {
    return "(scope_id, idem_key) > (" + idParam + ", " + keyParam + ")";
  }

  @Override
  protected String keyNotAfter(String idParam, String keyParam) {
    return "(scope_id, idem_key) <= (" + idParam + ", " + keyParam + ")";
  }

  /**
   * The chunk's rows as the next {@code :limit} of the primary key after {@code :after_*}, found by
   * ctid, and of them the expired ones up to {@code :up_to_*}. PostgreSQL (15 at least) stops an
   * index scan at a row-value upper bound only at its first column, so a range bounded by {@code <=
   * :up_to_*} in the scan would read on to the end of that scope: the {@code LIMIT} ends the scan
   * instead, and the bound only filters.
   */
  @Override
  protected String walkDeleteText(boolean after, boolean upTo) {
    return "DELETE FROM "
        + table
        + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM "
        + table
        + (after ? " WHERE " + keyAfter(":after_scope_id", ":after_key") : "")
        + " ORDER BY scope_id, idem_key LIMIT :limit))"
        + (upTo ? " AND " + keyNotAfter(":up_to_scope_id", ":up_to_key") : "")
        + " AND expires_at <= "
        + now();
  }

  /** The row at the offset after {@code :after_*}, kept only when not after {@code :up_to_*}. */
  @Override
  protected String walkBoundText(boolean after, boolean upTo) {
    String next =
        "SELECT scope_id, idem_key FROM "
            + table
            + (after ? " WHERE " + keyAfter(":after_scope_id", ":after_key") : "")
            + " ORDER BY scope_id, idem_key"
            + oneRowAt(":offset");
    return upTo
        ? "SELECT scope_id, idem_key FROM ("
            + next
            + ") chunk_end WHERE "
            + keyNotAfter(":up_to_scope_id", ":up_to_key")
        : next;
  }
}
