package dev.idempotent.webflux;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.server.WebHandler;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The conformance application ({@code HttpConformanceSuite} describes its routes) as a WebFlux
 * handler: it never blocks, it waits with timers.
 */
final class ConformanceHandler implements WebHandler {
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  int runs(String route) {
    AtomicInteger n = runs.get(route);
    return n == null ? 0 : n.get();
  }

  private int count(String route) {
    return runs.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  public Mono<Void> handle(ServerWebExchange exchange) {
    String path = exchange.getRequest().getPath().value();
    String route = path.replaceAll("^/[^/]+", "");
    String scene = path.substring(0, path.length() - route.length());
    ServerHttpResponse res = exchange.getResponse();
    if (exchange.getRequest().getMethod().name().equals("GET") && route.equals("/form")) {
      return IdempotencyWebFilter.of(exchange)
          .issueSubmitToken(exchange, param(exchange, "path"))
          .flatMap(token -> text(res, "text/plain", token));
    }
    return delay(param(exchange, "ms")).then(Mono.defer(() -> route(exchange, path, route, scene)));
  }

  private Mono<Void> route(ServerWebExchange exchange, String path, String route, String scene) {
    ServerHttpResponse res = exchange.getResponse();
    HttpHeaders headers = res.getHeaders();
    switch (route.replaceAll("^(/[^/]*).*$", "$1")) {
      case "/orders" -> {
        return DataBufferUtils.join(exchange.getRequest().getBody())
            .map(
                b -> {
                  byte[] bytes = new byte[b.readableByteCount()];
                  b.read(bytes);
                  DataBufferUtils.release(b);
                  return bytes;
                })
            .defaultIfEmpty(new byte[0])
            .flatMap(
                body -> {
                  int n = count(path);
                  res.setStatusCode(HttpStatusCode.valueOf(201));
                  headers.set("Location", "/orders/" + n + "?x=%20y");
                  headers.set("X-Trace", "run-" + n);
                  headers.add("Link", "</orders>; rel=\"collection\"");
                  headers.add("link", "</orders/" + n + "/items>; rel=\"items\"");
                  res.addCookie(ResponseCookie.from("seen", Integer.toString(n)).build());
                  headers.set("Content-Type", "application/octet-stream");
                  byte[] head = new byte[257];
                  for (int i = 0; i < 256; i++) {
                    head[i] = (byte) i;
                  }
                  head[256] = (byte) n;
                  return res.writeWith(
                      Flux.just(head, body, new byte[] {(byte) 0xFF})
                          .map(bytes -> res.bufferFactory().wrap(bytes)));
                });
      }
      case "/text" -> {
        int n = count(path);
        headers.set("Content-Type", "text/plain;charset=UTF-8");
        return res.writeWith(
            Flux.just("zażółć ", "run " + n)
                .map(s -> res.bufferFactory().wrap(s.getBytes(StandardCharsets.UTF_8))));
      }
      case "/status" -> {
        int n = count(path);
        res.setStatusCode(HttpStatusCode.valueOf(Integer.parseInt(param(exchange, "code"))));
        return text(res, "text/plain", "status run " + n);
      }
      case "/block" -> {
        // blocks the event loop on purpose (EventLoopBlockingTest checks that it is seen)
        count(path);
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return text(res, "text/plain", "blocked");
      }
      case "/throw" -> {
        count(path);
        return Mono.error(new IllegalStateException("the application failed"));
      }
      case "/big" -> {
        int n = count(path);
        headers.set("Content-Type", "application/octet-stream");
        int total = Integer.parseInt(param(exchange, "bytes"));
        List<DataBuffer> chunks = new ArrayList<>();
        for (int written = 0; written < total; written += 4096) {
          byte[] chunk = new byte[Math.min(4096, total - written)];
          Arrays.fill(chunk, (byte) n);
          chunks.add(res.bufferFactory().wrap(chunk));
        }
        return res.writeWith(Flux.fromIterable(chunks));
      }
      case "/redirect" -> {
        int n = count(path);
        res.setStatusCode(HttpStatusCode.valueOf(303));
        headers.set("Location", "/done/" + n);
        return res.setComplete();
      }
      case "/submit" -> {
        return exchange
            .getFormData()
            .flatMap(
                form -> {
                  String qty = form.getFirst("qty");
                  if (qty == null || !qty.matches("[1-9][0-9]*")) {
                    res.setStatusCode(HttpStatusCode.valueOf(422));
                    return text(res, "text/plain", "quantity must be a positive number");
                  }
                  int n = count(path);
                  res.setStatusCode(HttpStatusCode.valueOf(303));
                  headers.set(
                      "Location",
                      scene
                          + "/orders/"
                          + n
                          + "?qty="
                          + qty
                          + "&note="
                          + URLEncoder.encode(
                              String.valueOf(form.getFirst("note")), StandardCharsets.UTF_8));
                  return res.setComplete();
                });
      }
      default -> {
        int n = count(path);
        return delay(param(exchange, "hold"))
            .then(Mono.defer(() -> text(res, "text/plain", "ran " + n)));
      }
    }
  }

  private static String param(ServerWebExchange exchange, String name) {
    return exchange.getRequest().getQueryParams().getFirst(name);
  }

  private static Mono<Void> delay(String ms) {
    return ms == null ? Mono.empty() : Mono.delay(Duration.ofMillis(Long.parseLong(ms))).then();
  }

  private static Mono<Void> text(ServerHttpResponse res, String type, String text) {
    res.getHeaders().set("Content-Type", type);
    return res.writeWith(
        Mono.just(res.bufferFactory().wrap(text.getBytes(StandardCharsets.UTF_8))));
  }

  /** Makes the {@code X-Test-User} header the exchange's principal, as authentication would. */
  static final class TestAuthentication implements WebFilter {
    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
      String user = exchange.getRequest().getHeaders().getFirst("X-Test-User");
      if (user == null) {
        return chain.filter(exchange);
      }
      Principal principal = () -> user;
      return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    }
  }
}
