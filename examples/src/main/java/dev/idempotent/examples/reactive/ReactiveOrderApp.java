package dev.idempotent.examples.reactive;

import dev.idempotent.OnInProgress;
import dev.idempotent.examples.OrderReceipt;
import dev.idempotent.examples.OrderRequest;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.webflux.IdempotencyWebFilter;
import java.net.URI;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.HandlerStrategies;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The WebFlux example's HTTP API on Reactor Netty, behind {@link IdempotencyWebFilter} on the
 * in-process store: {@code POST /api/orders} with {@code
 * {"item":"book","quantity":1,"email":"ada@example.com"}} answers {@code 201 Created} with the
 * order. The filter answers 400 without an {@code Idempotency-Key}, 422 for the key with another
 * body, and the recorded 201 (with {@code Idempotent-Replayed: true}) to a repeat; a repeat while
 * the first request runs waits for it, without holding a thread.
 */
public final class ReactiveOrderApp implements AutoCloseable {
  /** The JSON of an order, in and out. */
  public record OrderJson(String id, String item, int quantity, String email) {}

  private final ReactiveOrderService orders;
  private final DisposableServer server;

  /** Listens on {@code host:port} (port 0: any free port) at once. */
  public ReactiveOrderApp(String host, int port, ReactiveOrderService orders) {
    this.orders = orders;
    // spotless:off
    // docs/reactive.md: the example's web filter (begin)
    HttpIdempotency protocol =
        HttpIdempotency.builder() // on Idempotency.global(): the in-process store
            .rule(
                IdempotencyRule.builder("orders-api")
                    .paths("/api/*")
                    .key(IdempotencyRule.Key.REQUIRED) // 400 without an Idempotency-Key
                    .onInProgress(OnInProgress.WAIT) // a repeat waits for the first request
                    .build())
            .build();
    RouterFunction<ServerResponse> routes =
        RouterFunctions.route().POST("/api/orders", this::placeOrder).build();
    HttpHandler handler =
        RouterFunctions.toHttpHandler(
            routes,
            HandlerStrategies.builder()
                .webFilter(IdempotencyWebFilter.builder(protocol).build())
                .build());
    server =
        HttpServer.create()
            .host(host)
            .port(port)
            .handle(new ReactorHttpHandlerAdapter(handler))
            .bindNow();
    // docs/reactive.md: the example's web filter (end)
    // spotless:on
  }

  private Mono<ServerResponse> placeOrder(ServerRequest request) {
    String key = request.headers().firstHeader(HttpIdempotency.KEY_HEADER);
    return request
        .bodyToMono(OrderJson.class)
        .flatMap(o -> orders.placeOrder(key, new OrderRequest(o.email(), o.item(), o.quantity())))
        .flatMap(
            receipt ->
                ServerResponse.created(URI.create("/orders/" + receipt.orderId()))
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(json(receipt)));
  }

  private static OrderJson json(OrderReceipt receipt) {
    return new OrderJson(
        receipt.orderId(), receipt.sku(), receipt.quantity(), receipt.customerId());
  }

  /** The port it listens on. */
  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.disposeNow();
  }
}
