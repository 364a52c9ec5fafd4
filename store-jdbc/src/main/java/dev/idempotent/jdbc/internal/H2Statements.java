package dev.idempotent.jdbc.internal;

/**
 * H2 2.x, for tests and demos: the claim is a plain insert, whose duplicate-key error says the key
 * is taken (the store then reads the row).
 */
final class H2Statements extends SqlStatements {
  private final Sql claim;
  private final Sql purgeBatch;
  private final Sql insertScope;
  private final Sql purgeScopes;

  H2Statements(String table) {
    super(table);
    this.claim =
        Sql.of(
            "INSERT INTO " + table + claimColumns() + " VALUES " + claimValues(nowPlus(":lease")));
    this.purgeBatch =
        Sql.of(
            "DELETE FROM "
                + table
                + " WHERE expires_at <= "
                + now()
                + " FETCH FIRST :limit ROWS ONLY");
    this.insertScope = Sql.of(insertScopeValues());
    this.purgeScopes =
        Sql.of(
            "DELETE FROM "
                + scopeTable()
                + " WHERE "
                + orphanScope()
                + " FETCH FIRST :limit ROWS ONLY");
  }

  @Override
  public ClaimAnswer claimAnswer() {
    return ClaimAnswer.COUNT;
  }

  @Override
  public Sql claim() {
    return claim;
  }

  @Override
  public Sql purgeBatch() {
    return purgeBatch;
  }

  /** A plain insert: its duplicate-key error ({@link #isDuplicateKey}) means the id has a row. */
  @Override
  public Sql insertScope() {
    return insertScope;
  }

  @Override
  public Sql purgeScopes() {
    return purgeScopes;
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
  protected String nowMinus(String param) {
    return "DATEADD(MICROSECOND, -CAST(" + param + " AS BIGINT), CURRENT_TIMESTAMP(6))";
  }

  @Override
  protected String microsUntil(String column) {
    return "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP(6), " + column + ")";
  }
}
