package dev.idempotent.web;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.util.List;

/** Spring MVC's asynchronous handlers behind the filter on Tomcat 11. */
class TomcatSpringMvcAsyncTest extends SpringMvcAsync {
  @Override
  TestServer start(List<Filter> filters, HttpServlet app) throws Exception {
    return TestServer.tomcat(filters, app);
  }
}
