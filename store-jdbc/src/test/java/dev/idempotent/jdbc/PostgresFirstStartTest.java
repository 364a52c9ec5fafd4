package dev.idempotent.jdbc;

import javax.sql.DataSource;

class PostgresFirstStartTest extends FirstStartChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.postgres();
  }

  @Override
  JdbcDialect dialect() {
    return JdbcDialect.POSTGRESQL;
  }
}
