package dev.idempotent.jdbc;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;

class H2ContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return JdbcIdempotencyStore.builder(TestDatabases.h2("contract")).createTable(true).build();
  }
}
