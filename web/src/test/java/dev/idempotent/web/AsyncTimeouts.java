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
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Asynchronous requests whose container timeout (200 ms) is shorter than their work, behind the
 * filter on a real container: a servlet's own {@code startAsync}, and Spring MVC's {@code
 * Callable}, {@code DeferredResult} and {@code CompletableFuture}. The key is never released while
 * the work may still run: the timed-out request is answered 503 {@code outcome-pending} (or with
 * the application's own timeout answer, unrecorded), a retry gets 409 while the claim is held, and
 * the work's end, where the filter sees it, is recorded. Every work waits on a gate the test opens,
 * so nothing depends on how fast the machine is. Also a server-sent-event stream, which flows
 * through as it is flushed. A subclass names the container.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AsyncTimeouts {
  static final long TIMEOUT_MS = 200;
  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
  static final Map<String, CountDownLatch> GATES = new ConcurrentHashMap<>();
  static final Map<String, CountDownLatch> DONE = new ConcurrentHashMap<>();
  static final List<Throwable> WORK_FAILURES = new CopyOnWriteArrayList<>();
  static final ExecutorService WORKERS = Executors.newCachedThreadPool();

  private final HttpClient http = HttpConformanceSuite.client(null);
  private IdempotencyStore store;
  private TestServer server;

  abstract TestServer start(List<Filter> filters, HttpServlet app) throws Exception;

  @BeforeAll
  void startServer() throws Exception {
    RUNS.clear();
    store = CaffeineIdempotencyStore.builder().build();
    HttpIdempotency protocol =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build()))
            .rule(IdempotencyRule.builder("timeouts").paths("/t/*").build())
            .rule(IdempotencyRule.builder("streams").paths("/s/*").build())
            .rule(
                IdempotencyRule.builder("bounded")
                    .paths("/bounded/*")
                    .maxHold(Duration.ofMillis(1500))
                    .build())
            .build();
    AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext();
    context.register(MvcConfig.class);
    server =
        start(
            List.of(IdempotencyFilter.builder(protocol).build()),
            new App(new DispatcherServlet(context)));
  }

  @BeforeEach
  void clearFailures() {
    WORK_FAILURES.clear();
  }

  @AfterAll
  void stopServer() throws Exception {
    GATES.values().forEach(CountDownLatch::countDown);
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  /** The case of the issue: one key, the work outlives the request's timeout, one run. */
  @Test
  void aServletsOwnStartAsyncThatTimesOutKeepsItsKeyAndRecordsTheWorksEnd() throws Exception {
    String path = "/t/raw";
    String key = gate(path);
    HttpResponse<byte[]> timedOut = post(path, key);
    assertProblem(timedOut, 503, "outcome-pending");
    assertThat(timedOut.headers().firstValue("Retry-After")).hasValue("1");
    assertProblem(post(path, key), 409, "request-in-progress");
    assertThat(runs(path)).isEqualTo(1);

    finishWork(path);
    HttpResponse<byte[]> replayed = post(path, key);
    assertThat(replayed.statusCode()).isEqualTo(201);
    assertThat(new String(replayed.body(), StandardCharsets.UTF_8)).isEqualTo("raw run 1");
    assertThat(replayed.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(replayed.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
    assertThat(runs(path)).isEqualTo(1);
    assertThat(WORK_FAILURES).isEmpty();
  }

  /** The application's own timeout listener answers: passed on, never recorded, key kept. */
  @Test
  void theApplicationsOwnTimeoutAnswerIsPassedOnUnrecordedAndTheWorksEndIsRecorded()
      throws Exception {
    String path = "/t/raw-own";
    String key = gate(path);
    HttpResponse<byte[]> timedOut = post(path, key);
    assertThat(timedOut.statusCode()).isEqualTo(202);
    assertThat(new String(timedOut.body(), StandardCharsets.UTF_8)).isEqualTo("still working");
    assertProblem(post(path, key), 409, "request-in-progress");

    finishWork(path);
    HttpResponse<byte[]> replayed = post(path, key);
    assertThat(replayed.statusCode()).isEqualTo(201);
    assertThat(new String(replayed.body(), StandardCharsets.UTF_8)).isEqualTo("raw run 1");
    assertThat(runs(path)).isEqualTo(1);
    assertThat(WORK_FAILURES).isEmpty();
  }

  /**
   * Work that never signals its end holds its key up to the rule's max-hold (1.5 s here): then the
   * key is settled as the rule's on-ambiguous-failure says (release, the default), and a retry
   * runs.
   */
  @Test
  void workThatNeverSignalsItsEndHoldsItsKeyUpToTheRulesMaxHold() throws Exception {
    String path = "/bounded/raw";
    String key = gate(path);
    assertProblem(post(path, key), 503, "outcome-pending");
    assertProblem(post(path, key), 409, "request-in-progress");
    assertThat(runs(path)).isEqualTo(1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    HttpResponse<byte[]> retry = post(path, key);
    while (retry.statusCode() == 409) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(100);
      retry = post(path, key);
    }
    assertProblem(retry, 503, "outcome-pending"); // the retry ran the work (and timed out too)
    assertThat(runs(path)).isEqualTo(2);
  }

  @Test
  void aTimedOutCallableKeepsItsKeyWhileItsWorkGoesOn() throws Exception {
    assertTimedOutMvcWorkKeepsItsKey("/t/callable");
  }

  @Test
  void aTimedOutDeferredResultKeepsItsKeyWhileItsWorkGoesOn() throws Exception {
    assertTimedOutMvcWorkKeepsItsKey("/t/deferred");
  }

  @Test
  void aTimedOutCompletableFutureKeepsItsKeyWhileItsWorkGoesOn() throws Exception {
    assertTimedOutMvcWorkKeepsItsKey("/t/future");
  }

  /**
   * A server-sent-event stream flows through the filter as it is written: its first event, flushed,
   * reaches the client while the stream is still open (its gate shut); it is not recorded, its key
   * is completed, and a repeat gets 409 response-streamed without running it again.
   */
  @Test
  void aStreamFlowsThroughAsItIsFlushedAndARepeatIsToldItWasAStream() throws Exception {
    String path = "/s/events";
    String key = gate(path);
    HttpResponse<java.util.stream.Stream<String>> streaming =
        http.send(
            HttpRequest.newBuilder(URI.create(server.base() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Idempotency-Key", key)
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    java.util.Iterator<String> lines = streaming.body().iterator();
    assertThat(streaming.statusCode()).isEqualTo(200);
    assertThat(lines.next()).isEqualTo("data: 1"); // the gate is shut: the stream is open
    assertThat(DONE.get(path).getCount()).isEqualTo(1);
    GATES.get(path).countDown();
    assertThat(lines.next()).isEmpty();
    assertThat(lines.next()).isEqualTo("data: 2");
    streaming.body().close();
    assertThat(DONE.get(path).await(30, TimeUnit.SECONDS)).isTrue();
    HttpResponse<byte[]> again = post(path, key);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (again.statusCode() == 409
        && new String(again.body(), StandardCharsets.UTF_8).contains("request-in-progress")) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(20);
      again = post(path, key);
    }
    assertProblem(again, 409, "response-streamed");
    assertThat(runs(path)).isEqualTo(1);
  }

  /** A DeferredResult's own timeout result is the application's answer: passed on, unrecorded. */
  @Test
  void aDeferredResultsOwnTimeoutResultIsPassedOnUnrecorded() throws Exception {
    String path = "/t/deferred-own";
    String key = gate(path);
    HttpResponse<byte[]> timedOut = post(path, key);
    assertThat(timedOut.statusCode()).isEqualTo(202);
    assertThat(new String(timedOut.body(), StandardCharsets.UTF_8)).isEqualTo("still working");
    assertThat(timedOut.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertProblem(post(path, key), 409, "request-in-progress");
    finishWork(path);
    assertProblem(post(path, key), 409, "request-in-progress");
    assertThat(runs(path)).isEqualTo(1);
  }

  /**
   * Spring MVC drops a timed-out handler's late result, so the filter never sees its work end: the
   * key stays claimed (409) after the work finished, up to the max-hold; it never runs twice.
   */
  private void assertTimedOutMvcWorkKeepsItsKey(String path) throws Exception {
    String key = gate(path);
    HttpResponse<byte[]> timedOut = post(path, key);
    assertProblem(timedOut, 503, "outcome-pending");
    assertThat(timedOut.headers().firstValue("Retry-After")).hasValue("1");
    assertProblem(post(path, key), 409, "request-in-progress");
    finishWork(path);
    assertProblem(post(path, key), 409, "request-in-progress");
    assertThat(runs(path)).isEqualTo(1);
    assertThat(WORK_FAILURES).isEmpty();
  }

  private String gate(String path) {
    GATES.put(path, new CountDownLatch(1));
    DONE.put(path, new CountDownLatch(1));
    return UUID.randomUUID().toString();
  }

  private static void finishWork(String path) throws InterruptedException {
    GATES.get(path).countDown();
    assertThat(DONE.get(path).await(30, TimeUnit.SECONDS)).as("the work of " + path).isTrue();
  }

  private HttpResponse<byte[]> post(String path, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.base() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", key)
            .header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString("x"))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static int runs(String path) {
    AtomicInteger n = RUNS.get(path);
    return n == null ? 0 : n.get();
  }

  static int count(String path) {
    return RUNS.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
  }

  /**
   * Waits for the test to open the gate of {@code path}, as work that goes on does: an interrupt
   * (Spring MVC interrupts a timed-out {@code Callable}) does not end it.
   */
  static void awaitGate(String path) {
    boolean interrupted = false;
    while (true) {
      try {
        GATES.get(path).await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  static void done(String path) {
    DONE.get(path).countDown();
  }

  /** A servlet's own asynchronous work on {@code /t/raw*} and {@code /bounded/*}; MVC elsewhere. */
  static final class App extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final DispatcherServlet mvc;

    App(DispatcherServlet mvc) {
      this.mvc = mvc;
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
      super.init(config);
      mvc.init(config);
    }

    @Override
    public void destroy() {
      mvc.destroy();
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res)
        throws ServletException, IOException {
      String path = req.getRequestURI();
      if (path.startsWith("/s/")) {
        count(path);
        res.setContentType("text/event-stream");
        res.getWriter().print("data: 1\n\n");
        res.flushBuffer();
        awaitGate(path);
        res.getWriter().print("data: 2\n\n");
        res.flushBuffer();
        done(path);
        return;
      }
      if (!path.startsWith("/t/raw") && !path.startsWith("/bounded/")) {
        mvc.service(req, res);
        return;
      }
      int n = count(path);
      AsyncContext context = req.startAsync();
      context.setTimeout(TIMEOUT_MS);
      if (path.endsWith("-own")) {
        context.addListener(new OwnTimeoutAnswer());
      }
      WORKERS.execute(
          () -> {
            awaitGate(path);
            try {
              HttpServletResponse response = (HttpServletResponse) context.getResponse();
              response.setStatus(201);
              response.setHeader("X-Work", "done");
              response.setContentType("text/plain");
              response.getWriter().print("raw run " + n);
              context.complete();
            } catch (IOException | RuntimeException e) {
              WORK_FAILURES.add(e);
            } finally {
              done(path);
            }
          });
    }
  }

  /** The application's own timeout handling: 202 and a body, then it completes the request. */
  static final class OwnTimeoutAnswer implements AsyncListener {
    @Override
    public void onTimeout(AsyncEvent event) throws IOException {
      HttpServletResponse response = (HttpServletResponse) event.getAsyncContext().getResponse();
      response.setStatus(202);
      response.setContentType("text/plain");
      response.getWriter().print("still working");
      event.getAsyncContext().complete();
    }

    @Override
    public void onComplete(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {}

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }

  @Configuration
  @EnableWebMvc
  static class MvcConfig implements WebMvcConfigurer {
    @Override
    public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
      configurer.setDefaultTimeout(TIMEOUT_MS);
    }

    @Bean
    TimingOutHandlers timingOutHandlers() {
      return new TimingOutHandlers();
    }
  }

  /** Every handler's work counts its run, waits for its gate, then answers. */
  @RestController
  static class TimingOutHandlers {
    @PostMapping("/t/callable")
    Callable<String> callable() {
      return () -> {
        count("/t/callable");
        awaitGate("/t/callable");
        done("/t/callable");
        return "callable done";
      };
    }

    @PostMapping("/t/deferred")
    DeferredResult<String> deferred() {
      DeferredResult<String> result = new DeferredResult<>();
      count("/t/deferred");
      WORKERS.execute(
          () -> {
            awaitGate("/t/deferred");
            result.setResult("deferred done");
            done("/t/deferred");
          });
      return result;
    }

    @PostMapping("/t/deferred-own")
    DeferredResult<ResponseEntity<String>> deferredOwn() {
      DeferredResult<ResponseEntity<String>> result =
          new DeferredResult<>(TIMEOUT_MS, ResponseEntity.accepted().body("still working"));
      count("/t/deferred-own");
      WORKERS.execute(
          () -> {
            awaitGate("/t/deferred-own");
            result.setResult(ResponseEntity.ok("deferred done"));
            done("/t/deferred-own");
          });
      return result;
    }

    @PostMapping("/t/future")
    CompletableFuture<String> future() {
      count("/t/future");
      return CompletableFuture.supplyAsync(
          () -> {
            awaitGate("/t/future");
            done("/t/future");
            return "future done";
          },
          WORKERS);
    }
  }
}
