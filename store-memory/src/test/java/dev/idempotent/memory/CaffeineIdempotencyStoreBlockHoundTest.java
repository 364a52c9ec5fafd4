package dev.idempotent.memory;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.NonBlockingPathCheck;

/** BlockHound: the memory store's non-blocking path never blocks a non-blocking thread. */
class CaffeineIdempotencyStoreBlockHoundTest extends NonBlockingPathCheck {
  @Override
  protected IdempotencyStore createStore() {
    return CaffeineIdempotencyStore.builder().build();
  }
}
