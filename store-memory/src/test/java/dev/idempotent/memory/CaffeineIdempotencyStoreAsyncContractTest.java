package dev.idempotent.memory;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.AsyncIdempotencyStoreContract;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** The contract through the store's non-blocking face, on a fake clock. */
class CaffeineIdempotencyStoreAsyncContractTest extends AsyncIdempotencyStoreContract {
  private final AtomicLong clock = new AtomicLong(987_654_321L);

  @Override
  protected IdempotencyStore createStore() {
    return CaffeineIdempotencyStore.builder().timeSource(clock::get).build();
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
