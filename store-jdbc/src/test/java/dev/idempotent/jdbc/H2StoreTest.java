package dev.idempotent.jdbc;

import javax.sql.DataSource;

class H2StoreTest extends JdbcStoreChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.h2("checks");
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.H2;
  }
}
