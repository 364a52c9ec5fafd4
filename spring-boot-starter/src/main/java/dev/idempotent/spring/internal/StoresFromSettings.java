package dev.idempotent.spring.internal;

import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyProperties;
import java.util.HashMap;
import java.util.Map;

/**
 * A store module's store made from the {@code idempotent.*} settings alone, exactly as without
 * Spring (its module's {@code IdempotencyStoreProvider}); the library closes it on shutdown.
 */
public final class StoresFromSettings {
  private StoresFromSettings() {}

  /** The store of {@code module}, made now (or retried in the background when unreachable). */
  public static IdempotencyStore create(
      IdempotencyProperties properties, IdempotencyProperties.Store module) {
    Map<String, String> settings = new HashMap<>(properties.settings());
    settings.put("idempotent.store", module.settingValue());
    return PropertiesConfigLoader.createStore(settings, StoresFromSettings.class.getClassLoader());
  }
}
