package dev.idempotent.jdbc;

import javax.sql.DataSource;

class H2FirstStartTest extends FirstStartChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.h2("first-start");
  }

  @Override
  JdbcDialect dialect() {
    return JdbcDialect.H2;
  }
}
