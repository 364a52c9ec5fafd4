package dev.idempotent.web;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.ErrorPage;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real embedded servlet container on 127.0.0.1 and a free port: filters on {@code /*} for
 * request, async and error dispatches, one servlet on {@code /*}, all with async support.
 */
interface TestServer extends AutoCloseable {
  /**
   * The error page for 404, inside the filter's paths: the filters are mapped to error dispatches
   * too.
   */
  String ERROR_PAGE = "/api/error-page";

  URI base();

  @Override
  void close() throws Exception;

  static TestServer jetty(List<Filter> filters, HttpServlet app) throws Exception {
    List<FilterHolder> holders = new java.util.ArrayList<>();
    for (Filter f : filters) {
      FilterHolder holder = new FilterHolder(f);
      holder.setAsyncSupported(true);
      holders.add(holder);
    }
    return jettyWith(holders, app);
  }

  /**
   * Jetty with filters the container instantiates and initialises, as {@code web.xml} would declare
   * them.
   */
  static TestServer jettyWith(List<FilterHolder> filters, HttpServlet app) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
    context.setContextPath("/");
    for (FilterHolder f : filters) {
      context.addFilter(
          f, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR));
    }
    ErrorPageErrorHandler errors = new ErrorPageErrorHandler();
    errors.addErrorPage(404, ERROR_PAGE);
    context.setErrorHandler(errors);
    ServletHolder servlet = new ServletHolder(app);
    servlet.setAsyncSupported(true);
    context.addServlet(servlet, "/*");
    server.setHandler(context);
    server.start();
    URI base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    return new TestServer() {
      @Override
      public URI base() {
        return base;
      }

      @Override
      public void close() throws Exception {
        server.stop();
      }

      @Override
      public String toString() {
        return "Jetty 12 ee10";
      }
    };
  }

  static TestServer tomcat(List<Filter> filters, HttpServlet app) throws Exception {
    Path dir = Files.createTempDirectory("tomcat-test");
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(dir.toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.getService().addConnector(connector);
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", dir.toString());
    Tomcat.addServlet(context, "app", app).setAsyncSupported(true);
    context.addServletMappingDecoded("/*", "app");
    ErrorPage page = new ErrorPage();
    page.setErrorCode(404);
    page.setLocation(ERROR_PAGE);
    context.addErrorPage(page);
    int i = 0;
    for (Filter f : filters) {
      FilterDef def = new FilterDef();
      def.setFilterName("filter" + i);
      def.setFilter(f);
      def.setAsyncSupported("true");
      context.addFilterDef(def);
      FilterMap map = new FilterMap();
      map.setFilterName("filter" + i);
      map.addURLPattern("/*");
      map.setDispatcher("REQUEST");
      map.setDispatcher("ASYNC");
      map.setDispatcher("ERROR");
      context.addFilterMap(map);
      i++;
    }
    tomcat.start();
    URI base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    return new TestServer() {
      @Override
      public URI base() {
        return base;
      }

      @Override
      public void close() throws Exception {
        tomcat.stop();
        tomcat.destroy();
      }

      @Override
      public String toString() {
        return "Tomcat 11";
      }
    };
  }
}
