package dev.idempotent.memory;

import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.util.List;

/**
 * The {@code idempotent.memory.*} settings, each defined once, and the store they make ({@link
 * #builder}), with or without Spring.
 */
// docs/stores/writing-a-store.md: settings (begin)
public final class MemoryStoreSettings {
  public static final Setting<Long> MAXIMUM_SIZE =
      Setting.longInteger(
          "idempotent.memory.maximum-size",
          CaffeineIdempotencyStore.DEFAULT_MAXIMUM_SIZE,
          1,
          Long.MAX_VALUE,
          "The most completed records kept (claims in progress do not count).");

  /** Every setting of the memory store. */
  public static final List<Setting<?>> ALL = List.of(MAXIMUM_SIZE);

  private MemoryStoreSettings() {}

  /** A builder of a store with the settings of {@code settings}. */
  public static CaffeineIdempotencyStore.Builder builder(StoreSettings settings) {
    return CaffeineIdempotencyStore.builder().maximumSize(settings.value(MAXIMUM_SIZE));
  }
}
// docs/stores/writing-a-store.md: settings (end)
