package dev.idempotent.examples;

import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.web.IdempotencyFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The demo web app on embedded Jetty: the order form ({@link OrderFormServlet}) and the JSON API
 * ({@link OrderApiServlet}) behind the idempotency filter, on the in-process store.
 */
public final class OrderWebApp implements AutoCloseable {
  private final OrderBook orders = new OrderBook();
  private final SubmitCounter submits = new SubmitCounter();
  private final Server server;
  private final ServerConnector connector;

  /** An app on {@code host:port} (port 0: any free port); {@link #start()} opens it. */
  public OrderWebApp(String host, int port) {
    server = new Server();
    connector = new ServerConnector(server);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);

    // Sessions: a submit token is bound to the browser's session (there is no login in the demo).
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
    // The filter on the global Idempotency instance: the in-process store, found with no
    // configuration.
    HttpIdempotency protocol =
        HttpIdempotency.builder()
            // the JSON API: 400 without an Idempotency-Key
            .rule(
                IdempotencyRule.builder("orders-api")
                    .paths("/api/*")
                    .key(IdempotencyRule.Key.REQUIRED)
                    .build())
            // the form: a POST needs the token rendered into it
            .rule(IdempotencyRule.submitTokens("order-form").paths("/orders").build())
            .build();
    FilterHolder idempotency = new FilterHolder(IdempotencyFilter.builder(protocol).build());
    idempotency.setAsyncSupported(true);
    context.addFilter(new FilterHolder(submits), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addFilter(idempotency, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
    context.addServlet(new ServletHolder("api", new OrderApiServlet(orders)), "/api/orders");
    context.addServlet(new ServletHolder("pages", new OrderFormServlet(orders, submits)), "/");
    server.setHandler(context);
  }

  /** Starts listening; returns this. */
  public OrderWebApp start() throws Exception {
    server.start();
    return this;
  }

  /** The port it listens on. */
  public int port() {
    return connector.getLocalPort();
  }

  /** The orders placed so far. */
  public OrderBook orders() {
    return orders;
  }

  /** How many POST requests arrived, before any idempotency check: what the clients sent. */
  public long submitsReceived() {
    return submits.count();
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  /** Counts the POST requests that reach the app, duplicates included. */
  static final class SubmitCounter implements Filter {
    private final AtomicLong posts = new AtomicLong();

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      if (request instanceof HttpServletRequest http && http.getMethod().equals("POST")) {
        posts.incrementAndGet();
      }
      chain.doFilter(request, response);
    }

    long count() {
      return posts.get();
    }
  }
}
