package dev.idempotent.jdbc;

import javax.sql.DataSource;

/** {@link LayoutChecks} in MySQL's dialect, on MariaDB (which speaks it too). */
class MySqlDialectLayoutTest extends LayoutChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.mariadb();
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.MYSQL;
  }

  @Override
  int statementsOfARepeatInsertedFirst() {
    return 2;
  }
}
