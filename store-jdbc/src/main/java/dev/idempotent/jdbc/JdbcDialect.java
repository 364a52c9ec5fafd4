package dev.idempotent.jdbc;

import java.util.Locale;
import java.util.Optional;

/**
 * The SQL dialects {@link JdbcIdempotencyStore} speaks. The store picks one from {@link
 * java.sql.DatabaseMetaData#getDatabaseProductName()} unless the builder names it. In every dialect
 * a claim of a fresh key is one insert; a taken key is read (in the same statement on MariaDB), or
 * read first where the scope's recent claims mostly found their key taken, and an expired record is
 * taken over by one conditional {@code UPDATE}.
 */
public enum JdbcDialect {
  /**
   * PostgreSQL 9.5 or later: the claim is an {@code INSERT ... ON CONFLICT DO NOTHING} that returns
   * the row it inserted; a taken key is then read with a second statement.
   */
  POSTGRESQL("postgresql"),
  /**
   * MariaDB 10.6 or later (InnoDB): the claim is an {@code INSERT ... ON DUPLICATE KEY UPDATE} that
   * changes nothing on a duplicate and returns the key's row ({@code RETURNING}).
   */
  MARIADB("mysql"),
  /**
   * MySQL 8 or later (InnoDB), and MariaDB through MySQL's driver: the claim is an {@code INSERT
   * ... ON DUPLICATE KEY UPDATE} that changes nothing on a duplicate and says through {@code
   * LAST_INSERT_ID} whether it inserted; a taken key is then read with a second statement.
   */
  MYSQL("mysql"),
  /**
   * H2 2.x, for tests and demos: the claim is a plain insert, whose duplicate-key error says the
   * key is taken.
   */
  H2("h2");

  private final String id;

  JdbcDialect(String id) {
    this.id = id;
  }

  /**
   * The classpath resource with this dialect's DDL for the default table {@code
   * idempotency_record}, for example {@code dev/idempotent/jdbc/schema-postgresql.sql}; MariaDB and
   * MySQL share {@code schema-mysql.sql}.
   */
  public String schemaResource() {
    return "dev/idempotent/jdbc/schema-" + id + ".sql";
  }

  /** The dialect for a database product name as JDBC reports it, if it is one this store speaks. */
  public static Optional<JdbcDialect> forProductName(String productName) {
    if (productName == null) {
      return Optional.empty();
    }
    String p = productName.toLowerCase(Locale.ROOT);
    if (p.contains("postgres")) {
      return Optional.of(POSTGRESQL);
    }
    if (p.contains("mariadb")) {
      return Optional.of(MARIADB);
    }
    if (p.contains("mysql")) {
      return Optional.of(MYSQL);
    }
    if (p.equals("h2") || p.startsWith("h2 ")) {
      return Optional.of(H2);
    }
    return Optional.empty();
  }
}
