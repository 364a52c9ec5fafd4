package dev.idempotent.jdbc;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.AsyncIdempotencyStoreContract;

/** The contract kit through the core's non-blocking face of the JDBC store, on PostgreSQL. */
class PostgresAsyncContractTest extends AsyncIdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return JdbcIdempotencyStore.builder(TestDatabases.postgres()).createTable(true).build();
  }
}
