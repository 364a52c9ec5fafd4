package dev.idempotent.jdbc;

import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class MySqlDialectFirstStartTest extends FirstStartChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.mariadb();
  }

  @Override
  JdbcDialect dialect() {
    return JdbcDialect.MYSQL;
  }

  /** The named lock of docs/stores/jdbc.md, held by another session. */
  @Test
  void aBuildWaitsForTheNamedLockHeldElsewhere() throws Exception {
    aBuildWaitsForTheLockHeldElsewhere(
        "SELECT GET_LOCK('<name>', 1)", "SELECT RELEASE_LOCK('<name>')", "idempotent:test.<table>");
  }
}
