/**
 * The store SPI: {@link dev.idempotent.spi.IdempotencyStore} (its javadoc is the protocol: claim,
 * complete, release, renew, fencing by owner token, time and errors), the records and answers it
 * deals in, and {@link dev.idempotent.spi.IdempotencyStoreProvider} with {@link
 * dev.idempotent.spi.StoreSettings} to build a store from {@code idempotent.*} properties. A
 * provider is found through {@link java.util.ServiceLoader}: list it in {@code
 * META-INF/services/dev.idempotent.spi.IdempotencyStoreProvider} and, in a named module, declare it
 * with {@code provides}. {@code idempotent-store-tck} checks a store against the protocol.
 */
package dev.idempotent.spi;
