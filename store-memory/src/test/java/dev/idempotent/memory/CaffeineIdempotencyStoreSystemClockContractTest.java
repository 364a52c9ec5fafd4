package dev.idempotent.memory;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;
import java.time.Duration;

/**
 * The contract on the system clock, with the default executor: expiry tests sleep through short
 * leases.
 */
class CaffeineIdempotencyStoreSystemClockContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return CaffeineIdempotencyStore.builder().build();
  }

  @Override
  protected Duration shortLease() {
    return Duration.ofMillis(300);
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
