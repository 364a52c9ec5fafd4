package dev.idempotent;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code idempotent.store=fake}, found through the class loader {@link StoreCreationTest} builds.
 * Creating the store takes {@code idempotent.fake.delay}; {@code idempotent.fake.fail=bad-setting}
 * is a wrong setting; while {@link #reachable} is false the backend cannot be reached; otherwise it
 * creates a {@link RealClockStore}.
 */
public final class FakeStoreProvider implements IdempotencyStoreProvider {
  static final AtomicInteger attempts = new AtomicInteger();
  static volatile boolean reachable = true;

  @Override
  public String name() {
    return "fake";
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    attempts.incrementAndGet();
    Duration delay = settings.duration("idempotent.fake.delay").orElse(Duration.ZERO);
    try {
      Thread.sleep(delay.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (settings.get("idempotent.fake.fail").orElse("").equals("bad-setting")) {
      throw new IllegalArgumentException("setting idempotent.fake.fail says a setting is wrong");
    }
    if (!reachable) {
      throw new IllegalStateException("cannot reach the fake backend at fake://nowhere");
    }
    return new RealClockStore();
  }
}
