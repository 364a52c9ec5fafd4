package dev.idempotent.web;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.util.List;

/** Asynchronous requests that time out behind the filter on Jetty 12 (ee10). */
class JettyAsyncTimeoutTest extends AsyncTimeouts {
  @Override
  TestServer start(List<Filter> filters, HttpServlet app) throws Exception {
    return TestServer.jetty(filters, app);
  }
}
