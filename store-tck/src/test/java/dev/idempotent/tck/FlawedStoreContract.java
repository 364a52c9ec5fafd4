package dev.idempotent.tck;

import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;

/**
 * The contract run against a {@link ReferenceStore} with the flaw set in {@link #flaw}. Not a test
 * by itself (its name does not end in Test): {@link ContractCatchesFlawsTest} launches it once per
 * flaw.
 */
class FlawedStoreContract extends IdempotencyStoreContract {
  static volatile ReferenceStore.Flaw flaw = ReferenceStore.Flaw.NONE;
  private ReferenceStore store;

  @Override
  protected IdempotencyStore createStore() {
    store = new ReferenceStore(flaw);
    return store;
  }

  @Override
  protected void elapse(Duration duration) {
    store.clock.addAndGet(duration.toNanos());
  }

  @Override
  protected int largestOutcome() {
    return flaw.capsOutcomes() ? ReferenceStore.OUTCOME_CAP : super.largestOutcome();
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
