package dev.idempotent.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.Idempotent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * {@code POST /orders} with an {@code Idempotency-Key} header, on the JDK's built-in HTTP server.
 * Missing key: 400. Same key while the first request runs: 409. Same key, different body: 422. Repeat: the
 * first response, byte for byte. The mapping is one handler over {@link IdempotencyException#httpStatus()}.
 */
public final class OrderHttpApi implements AutoCloseable {
  /** A recorded HTTP response: what every repeat of the key gets back. */
  public record Response(int status, String body) implements Serializable {}

  private final OrderService orders;
  private final HttpServer server;

  public OrderHttpApi(OrderService orders, int port) throws IOException {
    this.orders = orders;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.createContext("/orders", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(16, r -> {
      Thread t = new Thread(r, "orders-http");
      t.setDaemon(true);
      return t;
    }));
  }

  public OrderHttpApi start() {
    server.start();
    return this;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /** Parses {@code customer=c1&sku=book&quantity=2} and places the order once per key. */
  @Idempotent(key = "#idempotencyKey", payload = "#body", scope = "http.orders")
  Response createOrder(String idempotencyKey, String body) {
    String customer = field(body, "customer");
    String sku = field(body, "sku");
    String quantity = field(body, "quantity");
    if (customer == null || sku == null || quantity == null) {
      return new Response(400, "{\"error\":\"body must be customer=..&sku=..&quantity=..\"}");
    }
    if ("slow".equals(sku)) {
      orders.setWorkMillis(500);
    }
    OrderReceipt r = orders.placeOrderForApi(idempotencyKey, new OrderRequest(customer, sku, Integer.parseInt(quantity)));
    return new Response(201, "{\"orderId\":\"" + r.orderId() + "\",\"customer\":\"" + r.customerId()
        + "\",\"sku\":\"" + r.sku() + "\",\"quantity\":" + r.quantity() + "}");
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        send(exchange, new Response(405, "{\"error\":\"use POST\"}"), null);
        return;
      }
      String body;
      try (InputStream in = exchange.getRequestBody()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      Response response;
      String retryAfter = null;
      try {
        response = createOrder(key, body);
      } catch (IdempotencyException e) {
        response = new Response(e.httpStatus(), "{\"error\":\"" + e.getMessage().replace("\"", "'") + "\"}");
        if (e instanceof IdempotencyInProgressException p) {
          retryAfter = Long.toString(Math.max(1, p.leaseRemaining().toSeconds()));
        }
      } catch (RuntimeException e) {
        response = new Response(500, "{\"error\":\"" + e.getClass().getSimpleName() + "\"}");
      }
      send(exchange, response, retryAfter);
    }
  }

  private static void send(HttpExchange exchange, Response response, String retryAfter) throws IOException {
    byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    if (retryAfter != null) {
      exchange.getResponseHeaders().add("Retry-After", retryAfter);
    }
    exchange.sendResponseHeaders(response.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String field(String body, String name) {
    for (String part : body.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).trim().equals(name)) {
        String v = part.substring(eq + 1).trim();
        return v.isEmpty() ? null : v;
      }
    }
    return null;
  }
}
