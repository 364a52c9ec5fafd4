package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresFirstStartTest extends FirstStartChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.postgres();
  }

  @Override
  JdbcDialect dialect() {
    return JdbcDialect.POSTGRESQL;
  }

  /**
   * A database user without CREATE on the schema (PostgreSQL 15's default on {@code public}) cannot
   * create the tables: the build fails at once, naming the right and the DDL script. Once an
   * administrator has created the tables and granted the rights the docs list, a store built with
   * {@code createTable(true)} by that user comes up without DDL and serves.
   */
  @Test
  void aUserWithoutCreateFailsNamingTheRightAndStartsOnceTheTablesAreThere() throws Exception {
    String role = "idem_no_ddl_" + UUID.randomUUID().toString().substring(0, 8);
    String table = freshTable("idem_rights");
    execute("CREATE ROLE " + role + " LOGIN");
    try {
      assertThat(query("SELECT has_schema_privilege('" + role + "', 'public', 'CREATE')"))
          .as("the role may not create tables in public")
          .isEqualTo("f");
      PGSimpleDataSource asRole = new PGSimpleDataSource();
      asRole.setURL(
          TestDatabases.requireUrl(
              TestDatabases.POSTGRES_VARIABLE,
              "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
              5432));
      asRole.setUser(role);
      assertThatThrownBy(
              () -> JdbcIdempotencyStore.builder(asRole).table(table).createTable(true).build())
          .isInstanceOf(JdbcStoreException.class)
          .hasMessageContainingAll(
              "cannot create the idempotency table " + table,
              "[42501]",
              "CREATE on the schema",
              "schema-postgresql.sql");

      JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build().close();
      execute(
          "GRANT SELECT, INSERT, UPDATE, DELETE ON " + table + ", " + table + "_scope TO " + role);
      execute("GRANT SELECT ON " + table + "_meta TO " + role);
      try (JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(asRole).table(table).createTable(true).build()) {
        RecordKey key = RecordKey.of("rights", "k");
        assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
        assertThat(store.complete(key, "o1", new byte[] {1}, LONG)).isTrue();
        assertThat(store.purgeExpired(100)).isZero();
      }
    } finally {
      dropTables(table);
      execute("DROP OWNED BY " + role);
      execute("DROP ROLE " + role);
    }
  }

  /** The advisory lock of docs/stores/jdbc.md, numbered from its name, held by another session. */
  @Test
  void aBuildWaitsForTheAdvisoryLockHeldElsewhere() throws Exception {
    String name = "idempotent:public.<table>";
    aBuildWaitsForTheLockHeldElsewhere(
        "SELECT pg_advisory_xact_lock(('x' || left(encode(sha256(convert_to('<name>', 'UTF8')),"
            + " 'hex'), 16))::bit(64)::bigint)",
        null,
        name);
  }

  private void execute(String sql) throws Exception {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private String query(String sql) throws Exception {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
