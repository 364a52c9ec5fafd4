package dev.idempotent.webflux;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;

/** The web filter's rules on Reactor Netty and the in-process store. */
class ReactorNettyMemoryFilterTest extends WebFluxConformance {
  @Override
  protected IdempotencyStore store() {
    return CaffeineIdempotencyStore.builder().build();
  }
}
