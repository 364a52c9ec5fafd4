package dev.idempotent.web;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.util.List;

/** The filter's rules on Jetty 12 (ee10) and the in-process store. */
class JettyMemoryFilterTest extends FilterRulesContract {
  @Override
  TestServer start(List<Filter> filters, HttpServlet app) throws Exception {
    return TestServer.jetty(filters, app);
  }

  @Override
  IdempotencyStore store() {
    return CaffeineIdempotencyStore.builder().build();
  }
}
