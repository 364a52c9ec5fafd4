package dev.idempotent.web;

import static dev.idempotent.http.conformance.HttpConformanceSuite.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.http.conformance.HttpConformanceSuite;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import reactor.core.publisher.Mono;

/**
 * Spring MVC handlers that answer asynchronously ({@code Callable}, {@code DeferredResult}, {@code
 * CompletableFuture}, {@code Mono}) behind the servlet filter, on a real container: each is
 * recorded when its asynchronous dispatch completes, runs once, and its client is never told it
 * failed while its work runs. A subclass names the container.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class SpringMvcAsync {
  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
  static final ExecutorService WORKERS = Executors.newFixedThreadPool(4);

  private final HttpClient http = HttpConformanceSuite.client(null);
  private IdempotencyStore store;
  private TestServer server;

  abstract TestServer start(List<Filter> filters, HttpServlet app) throws Exception;

  @BeforeAll
  void startServer() throws Exception {
    RUNS.clear(); // the counts of the previous container's class
    store = CaffeineIdempotencyStore.builder().build();
    HttpIdempotency protocol =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build()))
            .rule(
                IdempotencyRule.builder("mvc")
                    .paths("/mvc/*")
                    .key(IdempotencyRule.Key.REQUIRED)
                    .build())
            .build();
    AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext();
    context.register(MvcConfig.class);
    server =
        start(List.of(IdempotencyFilter.builder(protocol).build()), new DispatcherServlet(context));
  }

  @AfterAll
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  @Test
  void aCallableIsRecordedWhenItCompletesAndReplayed() throws Exception {
    assertRecordedOnce("/mvc/callable", "callable");
  }

  @Test
  void aDeferredResultIsRecordedWhenItCompletesAndReplayed() throws Exception {
    assertRecordedOnce("/mvc/deferred", "deferred");
  }

  @Test
  void aCompletableFutureIsRecordedWhenItCompletesAndReplayed() throws Exception {
    assertRecordedOnce("/mvc/future", "future");
  }

  @Test
  void aMonoIsRecordedWhenItCompletesAndReplayed() throws Exception {
    assertRecordedOnce("/mvc/mono", "mono");
  }

  /**
   * The case a client once saw fail while the work went on: a CompletableFuture's work runs exactly
   * once for a request, a repeat while it runs and repeats after it.
   */
  @Test
  void aCompletableFuturesWorkRunsExactlyOnceAndItsClientGetsItsAnswer() throws Exception {
    String key = UUID.randomUUID().toString();
    String path = "/mvc/future/once";
    CompletableFuture<HttpResponse<String>> first =
        http.sendAsync(post(path + "?ms=1000", key), HttpResponse.BodyHandlers.ofString());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (runs(path) == 0) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(5);
    }
    HttpResponse<byte[]> busy =
        http.send(post(path + "?ms=1000", key), HttpResponse.BodyHandlers.ofByteArray());
    assertProblem(busy, 409, "request-in-progress");
    HttpResponse<String> answered = first.get(20, TimeUnit.SECONDS);
    assertThat(answered.statusCode()).isEqualTo(200);
    assertThat(answered.body()).isEqualTo("future run 1");
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> again =
          http.send(post(path + "?ms=1000", key), HttpResponse.BodyHandlers.ofString());
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(again.body()).isEqualTo("future run 1");
      assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    }
    assertThat(runs(path)).isEqualTo(1);
  }

  @Test
  void aFailedCompletableFutureIsNotRecordedAndRunsAgain() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first =
        http.send(post("/mvc/failing", key), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> again =
        http.send(post("/mvc/failing", key), HttpResponse.BodyHandlers.ofString());
    assertThat(first.statusCode()).isEqualTo(500);
    assertThat(again.statusCode()).isEqualTo(500);
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(runs("/mvc/failing")).isEqualTo(2);
  }

  private void assertRecordedOnce(String path, String name) throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first =
        http.send(post(path + "?ms=100", key), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> again =
        http.send(post(path + "?ms=100", key), HttpResponse.BodyHandlers.ofString());
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(first.body()).isEqualTo(name + " run 1");
    assertThat(first.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(name + " run 1");
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(runs(path)).isEqualTo(1);
  }

  private HttpRequest post(String path, String key) {
    return HttpRequest.newBuilder(URI.create(server.base() + path))
        .timeout(Duration.ofSeconds(30))
        .header("Idempotency-Key", key)
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString("x"))
        .build();
  }

  private static int runs(String path) {
    AtomicInteger n = RUNS.get(path);
    return n == null ? 0 : n.get();
  }

  private static int count(String path) {
    return RUNS.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Configuration
  @EnableWebMvc
  static class MvcConfig {
    @Bean
    AsyncHandlers asyncHandlers() {
      return new AsyncHandlers();
    }
  }

  /** Every handler counts its runs per path (without the query) when its work runs. */
  @RestController
  static class AsyncHandlers {
    @PostMapping("/mvc/callable")
    Callable<String> callable(@RequestParam long ms) {
      return () -> {
        sleep(ms);
        return "callable run " + count("/mvc/callable");
      };
    }

    @PostMapping("/mvc/deferred")
    DeferredResult<String> deferred(@RequestParam long ms) {
      DeferredResult<String> result = new DeferredResult<>(10_000L);
      WORKERS.execute(
          () -> {
            sleep(ms);
            result.setResult("deferred run " + count("/mvc/deferred"));
          });
      return result;
    }

    @PostMapping({"/mvc/future", "/mvc/future/once"})
    CompletableFuture<String> future(
        @RequestParam long ms, jakarta.servlet.http.HttpServletRequest request) {
      String path = request.getRequestURI();
      return CompletableFuture.supplyAsync(
          () -> {
            int n = count(path);
            sleep(ms);
            return "future run " + n;
          },
          WORKERS);
    }

    @PostMapping("/mvc/mono")
    Mono<String> mono(@RequestParam long ms) {
      return Mono.delay(Duration.ofMillis(ms)).map(t -> "mono run " + count("/mvc/mono"));
    }

    @PostMapping("/mvc/failing")
    CompletableFuture<String> failing() {
      return CompletableFuture.supplyAsync(
          () -> {
            count("/mvc/failing");
            throw new IllegalStateException("the work failed");
          },
          WORKERS);
    }
  }
}
