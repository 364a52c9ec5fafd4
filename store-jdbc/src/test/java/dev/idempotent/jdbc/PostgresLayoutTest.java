package dev.idempotent.jdbc;

import javax.sql.DataSource;

class PostgresLayoutTest extends LayoutChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.postgres();
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.POSTGRESQL;
  }

  @Override
  int statementsOfARepeatInsertedFirst() {
    return 2;
  }
}
