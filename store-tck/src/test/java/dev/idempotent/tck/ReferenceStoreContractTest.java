package dev.idempotent.tck;

import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;

/** The kit passes against a store that follows the protocol, with a fake clock. */
class ReferenceStoreContractTest extends IdempotencyStoreContract {
  private ReferenceStore store;

  @Override
  protected IdempotencyStore createStore() {
    store = new ReferenceStore(ReferenceStore.Flaw.NONE);
    return store;
  }

  @Override
  protected void elapse(Duration duration) {
    store.clock.addAndGet(duration.toNanos());
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
