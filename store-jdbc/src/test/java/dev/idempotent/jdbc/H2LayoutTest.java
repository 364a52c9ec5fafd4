package dev.idempotent.jdbc;

import javax.sql.DataSource;

class H2LayoutTest extends LayoutChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.h2("layout");
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.H2;
  }

  @Override
  int statementsOfARepeatInsertedFirst() {
    return 2;
  }
}
