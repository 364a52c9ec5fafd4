package dev.idempotent.jdbc.internal;

/**
 * MariaDB 10.6 or later: MySQL's statements ({@link MySqlStatements}), but the claim is one query,
 * an {@code INSERT ... ON DUPLICATE KEY UPDATE} that changes nothing on a duplicate and {@code
 * RETURNING} the key's row as it is after it: the caller's own claim when it inserted, the row that
 * holds the key otherwise. No code to lose and no row count to read, so connections of either
 * {@code useAffectedRows} setting answer alike.
 */
final class MariaDbStatements extends MySqlStatements {
  private final Sql claim;

  MariaDbStatements(String table) {
    super(table);
    this.claim =
        Sql.of(
            "INSERT INTO "
                + table
                + claimColumns()
                + " VALUES "
                + claimValues(nowPlus(":lease"))
                + " ON DUPLICATE KEY UPDATE expires_at = expires_at RETURNING "
                + rowValues());
  }

  @Override
  public ClaimAnswer claimAnswer() {
    return ClaimAnswer.ROW;
  }

  @Override
  public Sql claim() {
    return claim;
  }
}
