package dev.idempotent.jdbc;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.AsyncIdempotencyStoreContract;

/**
 * The contract kit through the non-blocking face the core gives a blocking store (its operations on
 * a bounded executor of the store's own, its waits on a timer), on H2.
 */
class H2AsyncContractTest extends AsyncIdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return JdbcIdempotencyStore.builder(TestDatabases.h2("async-contract"))
        .createTable(true)
        .build();
  }
}
