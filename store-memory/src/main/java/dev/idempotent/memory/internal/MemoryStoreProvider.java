package dev.idempotent.memory.internal;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.memory.MemoryStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.util.List;

/**
 * Builds a {@link CaffeineIdempotencyStore} from the settings of {@link MemoryStoreSettings}
 * ({@code idempotent.store=memory}).
 */
public final class MemoryStoreProvider implements IdempotencyStoreProvider {
  @Override
  public String name() {
    return "memory";
  }

  @Override
  public List<Setting<?>> settings() {
    return MemoryStoreSettings.ALL;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    return MemoryStoreSettings.builder(settings).build();
  }
}
