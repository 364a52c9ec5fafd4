package dev.idempotent.spring.internal;

import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.StoreSettings;
import dev.idempotent.spring.IdempotencyStoreProperties;
import java.util.Map;

/**
 * A store module's store made from its typed properties by its {@code IdempotencyStoreProvider},
 * exactly as without Spring; the library closes it on shutdown.
 */
public final class StoresFromSettings {
  private StoresFromSettings() {}

  /** The store of {@code properties}, made now (or retried in the background when unreachable). */
  public static IdempotencyStore create(IdempotencyStoreProperties properties) {
    StoreSettings settings =
        TypedSettings.ofStore(properties)
            .withTyped(Map.of(PropertiesConfigLoader.STORE.name(), properties.storeName()));
    return PropertiesConfigLoader.createStore(settings, StoresFromSettings.class.getClassLoader());
  }
}
