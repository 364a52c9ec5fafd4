package dev.idempotent.spring.webflux.it;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.webflux.IdempotencyWebFilter;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** Reactive handlers behind the web filter; each counts its runs. */
@RestController
public class ReactiveOrderApi {
  private final AtomicInteger orders = new AtomicInteger();
  private final AtomicInteger submits = new AtomicInteger();

  @PostMapping("/api/orders")
  public Mono<ResponseEntity<String>> order(
      @RequestBody String body, @RequestParam(defaultValue = "0") long ms) {
    return Mono.delay(Duration.ofMillis(ms))
        .map(
            t -> {
              int n = orders.incrementAndGet();
              return ResponseEntity.status(HttpStatus.CREATED)
                  .location(URI.create("/api/orders/" + n))
                  .body("order " + n + " of " + body);
            });
  }

  @PostMapping("/api/refused")
  public Mono<String> refused() {
    return Mono.error(new DuplicateRequestException("payments", "<redacted>"));
  }

  @GetMapping("/form")
  public Mono<String> form(ServerWebExchange exchange) {
    return IdempotencyWebFilter.of(exchange).issueSubmitToken(exchange, "/checkout");
  }

  @PostMapping("/checkout")
  public Mono<ResponseEntity<Void>> checkout(ServerWebExchange exchange) {
    return exchange
        .getFormData()
        .map(
            form ->
                ResponseEntity.status(HttpStatus.SEE_OTHER)
                    .location(
                        URI.create(
                            "/orders/"
                                + submits.incrementAndGet()
                                + "?qty="
                                + form.getFirst("qty")))
                    .build());
  }

  public int orders() {
    return orders.get();
  }

  public int submits() {
    return submits.get();
  }
}
