package dev.idempotent.jdbc;

import javax.sql.DataSource;

class MariaDbFirstStartTest extends FirstStartChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.mariadb();
  }

  @Override
  JdbcDialect dialect() {
    return JdbcDialect.MARIADB;
  }
}
