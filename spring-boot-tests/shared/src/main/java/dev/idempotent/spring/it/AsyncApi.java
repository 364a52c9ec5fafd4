package dev.idempotent.spring.it;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Spring MVC handlers that answer asynchronously, for the servlet filter (protected when a test
 * sets {@code idempotent.web.paths=/async/*}); each counts the runs of its work.
 */
@RestController
public class AsyncApi {
  public final AtomicInteger futureRuns = new AtomicInteger();
  public final AtomicInteger callableRuns = new AtomicInteger();
  public final AtomicInteger monoRuns = new AtomicInteger();

  @PostMapping("/async/future")
  public CompletableFuture<String> future(@RequestParam(defaultValue = "0") long ms) {
    return CompletableFuture.supplyAsync(
        () -> "future run " + futureRuns.incrementAndGet(),
        CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
  }

  @PostMapping("/async/callable")
  public Callable<String> callable() {
    return () -> "callable run " + callableRuns.incrementAndGet();
  }

  @PostMapping("/async/mono")
  public Mono<String> mono() {
    return Mono.delay(Duration.ofMillis(50)).map(t -> "mono run " + monoRuns.incrementAndGet());
  }
}
