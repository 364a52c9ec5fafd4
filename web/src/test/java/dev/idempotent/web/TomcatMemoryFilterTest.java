package dev.idempotent.web;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import jakarta.servlet.Filter;
import java.util.List;

/** The filter's rules on Tomcat 11 and the in-process store. */
class TomcatMemoryFilterTest extends ServletConformance {
  @Override
  TestServer start(List<Filter> filters, TestApp app) throws Exception {
    return TestServer.tomcat(filters, app);
  }

  @Override
  protected IdempotencyStore store() {
    return CaffeineIdempotencyStore.builder().build();
  }
}
