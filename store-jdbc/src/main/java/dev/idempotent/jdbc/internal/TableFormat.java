package dev.idempotent.jdbc.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.TreeSet;

/**
 * The format version of a store's tables: one row of {@code <table>_meta}, written by the DDL that
 * creates the tables ({@code schema-<dialect>.sql}, or {@code createTable(true)}). A store reads it
 * once, before its first statement on the tables, and refuses tables of another version, or tables
 * without it, with an {@link IdempotencyConfigurationException} that says what to do: no call runs
 * on records whose layout it does not know, not even fail-open. The version is in a table of its
 * own, read once, so that no record carries it.
 */
public final class TableFormat {
  /** The version of the tables this store reads and writes. */
  public static final int VERSION = 1;

  private final SqlAccessor db;
  private final JdbcDialect dialect;

  public TableFormat(SqlAccessor db, JdbcDialect dialect) {
    this.db = db;
    this.dialect = dialect;
  }

  /**
   * Checks that the tables hold this format: the record table's missing-table error when it is not
   * there, a refusal when it is there without the marker, or with another version.
   */
  public void check(Connection c, int timeout) throws SQLException {
    db.queryRow(c, timeout, recordTableProbe(), Values.NONE, rs -> null);
    List<Integer> versions;
    try {
      versions =
          db.queryAll(c, timeout, db.statements().readFormat(), Values.NONE, rs -> rs.getInt(1));
    } catch (SQLException e) {
      if (db.statements().isMissingTable(e)) {
        throw unmarked();
      }
      throw e;
    }
    TreeSet<Integer> distinct = new TreeSet<>(versions);
    if (distinct.size() == 1 && distinct.first() == VERSION) {
      return;
    }
    throw new IdempotencyConfigurationException(
        distinct.isEmpty()
            ? db.statements().metaTable()
                + " holds no format version: the tables were not created by "
                + dialect.schemaResource()
                + advice()
            : "table "
                + db.statements().table()
                + " holds idempotency records in format version "
                + (distinct.size() == 1 ? distinct.first() : distinct)
                + " ("
                + db.statements().metaTable()
                + "), and this version of idempotent-store-jdbc reads format version "
                + VERSION
                + " only: run the version of the application that wrote them on them, or give this"
                + " one tables of its own (the builder's table(...), or idempotent.jdbc.table)");
  }

  /**
   * Before the DDL of {@code createTable(true)} runs: refuses a record table that is there without
   * the marker, or with another version, which the DDL ({@code IF NOT EXISTS}) would leave as it is
   * and stamp.
   */
  public void checkBeforeCreate(Connection c, int timeout) throws SQLException {
    TableMetadata records =
        TableMetadata.of(c, db.statements().table(), db.statements().schemasAreCatalogs());
    if (records.exists(c)) {
      check(c, timeout);
    }
  }

  private Sql recordTableProbe() {
    return Sql.of("SELECT 1 FROM " + db.statements().table() + " WHERE 1 = 0");
  }

  private IdempotencyConfigurationException unmarked() {
    return new IdempotencyConfigurationException(
        "table "
            + db.statements().table()
            + " has no "
            + db.statements().metaTable()
            + " with its format version, so it was not created by "
            + dialect.schemaResource()
            + " of this version"
            + advice());
  }

  private String advice() {
    SqlStatements sql = db.statements();
    return ": its layout is not this store's. Drop "
        + sql.table()
        + " and "
        + sql.scopeTable()
        + " (and "
        + sql.metaTable()
        + ") and create them with "
        + dialect.schemaResource()
        + " (or createTable(true) / idempotent.jdbc.create-table=true), or give the store tables"
        + " of their own";
  }
}
