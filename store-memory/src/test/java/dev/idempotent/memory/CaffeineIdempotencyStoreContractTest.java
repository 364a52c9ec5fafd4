package dev.idempotent.memory;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** The contract on a fake clock: expiry tests advance the clock instead of sleeping. */
// spotless:off
// docs/stores/writing-a-store.md: contract test (begin)
class CaffeineIdempotencyStoreContractTest extends IdempotencyStoreContract {
  private final AtomicLong clock = new AtomicLong(123_456_789L);

  @Override
  protected IdempotencyStore createStore() {
    return CaffeineIdempotencyStore.builder().timeSource(clock::get).executor(Runnable::run).build();
  }

  @Override
  protected void elapse(Duration duration) {
    clock.addAndGet(duration.toNanos());
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
// docs/stores/writing-a-store.md: contract test (end)
// spotless:on
