package dev.idempotent.memory.internal;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;

/**
 * Builds a {@link CaffeineIdempotencyStore} from settings ({@code idempotent.store=memory}). Reads
 * {@value #MAXIMUM_SIZE}, the most completed records kept (default {@value
 * CaffeineIdempotencyStore#DEFAULT_MAXIMUM_SIZE}).
 */
public final class MemoryStoreProvider implements IdempotencyStoreProvider {
  /** The setting for {@link CaffeineIdempotencyStore.Builder#maximumSize(long)}. */
  public static final String MAXIMUM_SIZE = "idempotent.memory.maximum-size";

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    CaffeineIdempotencyStore.Builder builder = CaffeineIdempotencyStore.builder();
    var maximumSize = settings.get(MAXIMUM_SIZE);
    if (maximumSize.isPresent()) {
      builder = builder.maximumSize(parseMaximumSize(maximumSize.get()));
    }
    return builder.build();
  }

  private static long parseMaximumSize(String text) {
    long value;
    try {
      value = Long.parseLong(text.replace("_", ""));
    } catch (NumberFormatException e) {
      throw invalid(text);
    }
    if (value <= 0) {
      throw invalid(text);
    }
    return value;
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "setting "
            + MAXIMUM_SIZE
            + " must be a positive whole number of records,"
            + " for example 100000 (the default), was '"
            + text
            + "'");
  }
}
