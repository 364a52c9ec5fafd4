package dev.idempotent.webflux;

import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.conformance.HttpConformanceSuite;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The HTTP contract on a real Reactor Netty server (127.0.0.1, a free port): the test
 * authentication, one {@link IdempotencyWebFilter} per protocol, and the conformance handler. A
 * subclass names the store.
 */
abstract class WebFluxConformance extends HttpConformanceSuite {
  private final ConformanceHandler app = new ConformanceHandler();

  @Override
  protected ConformanceServer start(List<HttpIdempotency> protocols) {
    List<WebFilter> filters = new ArrayList<>();
    filters.add(new ConformanceHandler.TestAuthentication());
    for (HttpIdempotency p : protocols) {
      filters.add(IdempotencyWebFilter.builder(p).build());
    }
    HttpHandler handler =
        WebHttpHandlerBuilder.webHandler(app).filters(f -> f.addAll(filters)).build();
    DisposableServer server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(new ReactorHttpHandlerAdapter(handler))
            .bindNow();
    return new ConformanceServer() {
      @Override
      public URI base() {
        return URI.create("http://127.0.0.1:" + server.port() + "/");
      }

      @Override
      public int runs(String path) {
        return app.runs(path);
      }

      @Override
      public void close() {
        server.disposeNow();
      }
    };
  }
}
