package dev.idempotent.spi;

import java.util.List;

/**
 * Builds a store from settings, so that a store module on the classpath works with no code.
 * Registered through {@link java.util.ServiceLoader} in {@code
 * META-INF/services/dev.idempotent.spi.IdempotencyStoreProvider}.
 *
 * <p>{@code idempotent.store=NAME} picks the provider whose {@link #name()} is {@code NAME}. When
 * it is not set and exactly one provider is on the classpath, that one is the default store.
 *
 * <p>Every setting the provider reads is defined once, as a {@link Setting} listed by {@link
 * #settings()} and read with {@link StoreSettings#value(Setting)}; the Spring Boot starter gives
 * the same settings typed, and its tests check its properties, their metadata and the docs against
 * this list (docs/stores/writing-a-store.md).
 */
public interface IdempotencyStoreProvider {
  /**
   * The value of {@code idempotent.store} that selects this provider: {@code memory}, {@code
   * redisson}, {@code jdbc}.
   */
  String name();

  /**
   * The settings {@link #create} reads, each defined once ({@code idempotent.<name>.*} by
   * convention), in the order the docs list them.
   */
  default List<Setting<?>> settings() {
    return List.of();
  }

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
