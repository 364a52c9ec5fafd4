package dev.idempotent.spi;

/**
 * Builds a store from settings, so that a store module on the classpath works with no code.
 * Registered through {@link java.util.ServiceLoader} in {@code
 * META-INF/services/dev.idempotent.spi.IdempotencyStoreProvider}.
 *
 * <p>{@code idempotent.store=NAME} picks the provider whose {@link #name()} is {@code NAME}. When
 * it is not set and exactly one provider is on the classpath, that one is the default store.
 */
public interface IdempotencyStoreProvider {
  /**
   * The value of {@code idempotent.store} that selects this provider: {@code memory}, {@code
   * redisson}, {@code jdbc}.
   */
  String name();

  /**
   * Creates the store. The two kinds of failure are told apart: a wrong setting is a configuration
   * error (HTTP 500, reported at once); anything else means the backend cannot be reached: each
   * call then meets it as a store failure under the store-failure policy (503, or the method runs
   * on fail-open), and creation is tried again after a backoff.
   *
   * @throws IllegalArgumentException or {@link dev.idempotent.IdempotencyConfigurationException}
   *     when a setting is missing or invalid, or a dependency is missing (the message names it)
   * @throws RuntimeException any other, when the backend cannot be reached (the message names
   *     where, without secrets)
   */
  IdempotencyStore create(StoreSettings settings);
}
