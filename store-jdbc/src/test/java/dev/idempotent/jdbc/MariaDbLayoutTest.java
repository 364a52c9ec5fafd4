package dev.idempotent.jdbc;

import javax.sql.DataSource;

class MariaDbLayoutTest extends LayoutChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.mariadb();
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.MARIADB;
  }

  @Override
  int statementsOfARepeatInsertedFirst() {
    return 1;
  }
}
