package dev.idempotent.memory;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** The contract through the store's asynchronous face alone, on a fake clock. */
class CaffeineIdempotencyStoreAsyncContractTest extends IdempotencyStoreContract {
  private final AtomicLong clock = new AtomicLong(987_654_321L);

  @Override
  protected IdempotencyStore createStore() {
    return new AsyncFace(CaffeineIdempotencyStore.builder().timeSource(clock::get).build());
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
