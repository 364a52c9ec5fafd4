package dev.idempotent.spring.internal;

import dev.idempotent.Idempotency;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The health of each store of an {@link Idempotency}: one read of a key that is never written. The
 * same check for Spring Boot 3's and 4's health indicator types.
 */
public final class StoreHealth {
  private static final RecordKey PROBE = RecordKey.of("idempotent.health", "probe");

  private final Idempotency idempotency;

  public StoreHealth(Idempotency idempotency) {
    this.idempotency = idempotency;
  }

  /** By store ({@code default} and the named ones): {@code UP}, or {@code DOWN: the reason}. */
  public Map<String, String> check() {
    Map<String, IdempotencyStore> stores = new LinkedHashMap<>();
    stores.put("default", idempotency.config().defaultStore());
    stores.putAll(idempotency.config().stores());
    Map<String, String> result = new LinkedHashMap<>();
    stores.forEach(
        (name, store) -> {
          try {
            store.read(PROBE.fittedTo(store.maxKeyLength()));
            result.put(name, "UP");
          } catch (RuntimeException e) {
            result.put(name, "DOWN: " + e.getMessage());
          }
        });
    return result;
  }

  /** True when every store answered. */
  public static boolean allUp(Map<String, String> checked) {
    return checked.values().stream().allMatch("UP"::equals);
  }
}
