package dev.idempotent.jdbc.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/**
 * A table as {@link DatabaseMetaData} names it: catalog, schema and name, each as the database
 * stores unquoted names (upper case on H2, lower case on PostgreSQL), the schema as the catalog
 * where the database calls it that (MySQL/MariaDB), the connection's own where the name has none.
 */
record TableMetadata(String catalog, String schema, String name) {

  /** {@code table}, optionally schema-qualified, as the metadata of {@code c} names it. */
  static TableMetadata of(Connection c, String table, boolean schemasAreCatalogs)
      throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    int dot = table.indexOf('.');
    String schema = dot < 0 ? null : identifier(md, table.substring(0, dot));
    String name = identifier(md, table.substring(dot + 1));
    if (schemasAreCatalogs) {
      return new TableMetadata(schema != null ? schema : c.getCatalog(), null, name);
    }
    return new TableMetadata(null, schema != null ? schema : c.getSchema(), name);
  }

  /**
   * Whether the table is there, as the metadata lists it: asked without a statement, so that a
   * missing table is no server error (which some drivers log).
   */
  boolean exists(Connection c) throws SQLException {
    try (ResultSet rs = c.getMetaData().getTables(catalog, schema, name, null)) {
      while (rs.next()) {
        if (name.equals(rs.getString("TABLE_NAME"))) {
          return true;
        }
      }
    }
    return false;
  }

  /** An unquoted SQL name as the database stores it. */
  private static String identifier(DatabaseMetaData md, String name) throws SQLException {
    if (md.storesUpperCaseIdentifiers()) {
      return name.toUpperCase(Locale.ROOT);
    }
    return md.storesLowerCaseIdentifiers() ? name.toLowerCase(Locale.ROOT) : name;
  }
}
