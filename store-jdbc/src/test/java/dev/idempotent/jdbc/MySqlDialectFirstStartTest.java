package dev.idempotent.jdbc;

import javax.sql.DataSource;

class MySqlDialectFirstStartTest extends FirstStartChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.mariadb();
  }

  @Override
  JdbcDialect dialect() {
    return JdbcDialect.MYSQL;
  }
}
