package dev.idempotent.jdbc;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;

/**
 * The contract in MySQL's dialect on MariaDB connections that count affected rows ({@code
 * useAffectedRows=true}), where a fresh-key claim reads its answer from the row count; {@link
 * MySqlDialectContractTest} runs it on the driver's default, found rows, where the claim relies on
 * its {@code LAST_INSERT_ID} code.
 */
class MySqlDialectAffectedRowsContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return JdbcIdempotencyStore.builder(
            TestDatabases.pool(TestDatabases.mariadbUrl("useAffectedRows=true"), 10))
        .dialect(JdbcDialect.MYSQL)
        .createTable(true)
        .build();
  }
}
