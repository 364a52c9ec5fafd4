package dev.idempotent.spi;

/**
 * Builds a store from settings, so that a store module on the classpath works with no code. Registered
 * through {@link java.util.ServiceLoader} in {@code META-INF/services/dev.idempotent.spi.IdempotencyStoreProvider}.
 *
 * <p>{@code idempotent.store=NAME} picks the provider whose {@link #name()} is {@code NAME}. When it is not set
 * and exactly one provider is on the classpath, that one is the default store.
 */
public interface IdempotencyStoreProvider {
  /** The value of {@code idempotent.store} that selects this provider: {@code memory}, {@code redisson}, {@code jdbc}. */
  String name();

  /**
   * Creates the store.
   *
   * @throws IllegalArgumentException when a setting is missing or invalid (the message names it)
   * @throws RuntimeException when the backend cannot be reached (the message names where, without secrets)
   */
  IdempotencyStore create(StoreSettings settings);
}
