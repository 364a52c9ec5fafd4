package dev.idempotent.jdbc;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;

/** The contract in MySQL's dialect ({@code LAST_INSERT_ID} codes), on MariaDB, which speaks it. */
class MySqlDialectContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return JdbcIdempotencyStore.builder(TestDatabases.mariadb())
        .dialect(JdbcDialect.MYSQL)
        .createTable(true)
        .build();
  }
}
