package dev.idempotent.web;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import jakarta.servlet.Filter;
import java.util.List;

/** The filter's rules on Jetty 12 (ee10) and the in-process store. */
class JettyMemoryFilterTest extends ServletConformance {
  @Override
  TestServer start(List<Filter> filters, TestApp app) throws Exception {
    return TestServer.jetty(filters, app);
  }

  @Override
  protected IdempotencyStore store() {
    return CaffeineIdempotencyStore.builder().build();
  }
}
