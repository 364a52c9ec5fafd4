/**
 * The contract kit: {@link dev.idempotent.tck.IdempotencyStoreContract}, abstract JUnit 5 tests
 * every {@link dev.idempotent.spi.IdempotencyStore} passes. A store's test extends it and hands
 * over its store.
 */
package dev.idempotent.tck;
