package dev.idempotent.jdbc;

import dev.idempotent.jdbc.internal.ClaimOrder;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;

/** The store kit with every claim reading the key's row first, as a scope of repeats does. */
class PostgresReadFirstContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return JdbcIdempotencyStore.builder(TestDatabases.postgres())
        .createTable(true)
        .claimOrder(ClaimOrder.READ_FIRST)
        .build();
  }
}
