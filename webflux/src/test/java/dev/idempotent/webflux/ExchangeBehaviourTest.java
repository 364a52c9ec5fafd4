package dev.idempotent.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.http.conformance.HttpConformanceSuite;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.webflux.internal.ExchangeResponseCapture;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.util.context.Context;

/**
 * What only the WebFlux filter has to get right, on Reactor Netty: the subscriber's Reactor context
 * reaches the application, a client that goes away does not cancel the work once it runs, and the
 * application parses multipart data from the body the filter read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExchangeBehaviourTest {
  private final AtomicInteger slowRuns = new AtomicInteger();
  private final AtomicInteger slowStarts = new AtomicInteger();
  private final AtomicInteger uploadRuns = new AtomicInteger();
  private final AtomicInteger neverRuns = new AtomicInteger();
  private final CountDownLatch neverStarted = new CountDownLatch(1);
  private final CountDownLatch neverCancelled = new CountDownLatch(1);
  private volatile ExchangeResponseCapture neverResponse;
  private final AtomicInteger streamRuns = new AtomicInteger();
  private final CompletableFuture<Void> streamGate = new CompletableFuture<>();
  private final HttpClient http = HttpConformanceSuite.client(null);
  private IdempotencyStore store;
  private DisposableServer server;

  @BeforeAll
  void start() {
    store = CaffeineIdempotencyStore.builder().build();
    HttpIdempotency protocol =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build()))
            .rule(
                IdempotencyRule.builder("api")
                    .paths("/api/*")
                    .key(IdempotencyRule.Key.REQUIRED)
                    .build())
            .rule(
                IdempotencyRule.builder("bounded")
                    .paths("/bounded/*")
                    .maxHold(Duration.ofMillis(1000))
                    .onAmbiguousFailure(OnAmbiguousFailure.BLOCK)
                    .build())
            .build();
    WebFilter tenant =
        (exchange, chain) -> chain.filter(exchange).contextWrite(Context.of("tenant", "acme"));
    WebHandler app =
        exchange -> {
          ServerHttpResponse res = exchange.getResponse();
          return switch (exchange.getRequest().getPath().value()) {
            case "/api/context" ->
                Mono.deferContextual(
                    context -> write(res, "tenant " + context.getOrDefault("tenant", "none")));
            case "/api/slow" ->
                Mono.fromRunnable(slowStarts::incrementAndGet)
                    .then(Mono.delay(Duration.ofMillis(600)))
                    .flatMap(t -> write(res, "slow run " + slowRuns.incrementAndGet()));
            case "/api/upload" ->
                exchange
                    .getMultipartData()
                    .flatMap(
                        parts ->
                            write(
                                res,
                                "item "
                                    + ((FormFieldPart) parts.getFirst("item")).value()
                                    + ", upload run "
                                    + uploadRuns.incrementAndGet()));
            case "/bounded/never" -> {
              neverRuns.incrementAndGet();
              neverResponse = (ExchangeResponseCapture) res;
              res.getHeaders().set("Content-Type", "text/plain");
              yield res.writeWith(
                      Flux.concat(
                          Mono.just(
                              res.bufferFactory().wrap("partial".getBytes(StandardCharsets.UTF_8))),
                          Mono.<DataBuffer>never()))
                  .doOnSubscribe(s -> neverStarted.countDown())
                  .doOnCancel(neverCancelled::countDown);
            }
            case "/api/stream" -> {
              streamRuns.incrementAndGet();
              res.getHeaders().set("Content-Type", "text/event-stream");
              yield res.writeAndFlushWith(
                  Flux.concat(
                          Mono.just("data: 1\n\n"),
                          Mono.fromFuture(streamGate).thenReturn("data: 2\n\n"))
                      .map(
                          text ->
                              Mono.just(
                                  res.bufferFactory()
                                      .wrap(text.getBytes(StandardCharsets.UTF_8)))));
            }
            default -> write(res, "other");
          };
        };
    server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(
                new ReactorHttpHandlerAdapter(
                    WebHttpHandlerBuilder.webHandler(app)
                        .filter(tenant)
                        .filter(IdempotencyWebFilter.builder(protocol).build())
                        .build()))
            .bindNow();
  }

  @AfterAll
  void stop() throws Exception {
    if (server != null) {
      server.disposeNow();
    }
    if (store != null) {
      store.close();
    }
  }

  @Test
  void theSubscribersContextReachesTheApplication() throws Exception {
    HttpResponse<String> r = post("/api/context", UUID.randomUUID().toString(), null);
    assertThat(r.body()).isEqualTo("tenant acme");
  }

  @Test
  void aClientThatGoesAwayDoesNotCancelTheWorkWhichIsRecordedForItsRetry() throws Exception {
    String key = UUID.randomUUID().toString();
    // the client sends the request, and goes away once the work has started
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket
          .getOutputStream()
          .write(
              ("POST /api/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: "
                      + key
                      + "\r\nContent-Length: 1\r\n\r\nx")
                  .getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      long started = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (slowStarts.get() == 0) {
        assertThat(System.nanoTime()).isLessThan(started);
        Thread.sleep(5);
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    HttpResponse<String> retry;
    do {
      Thread.sleep(100);
      retry = post("/api/slow", key, null);
      assertThat(System.nanoTime()).isLessThan(deadline);
    } while (retry.statusCode() == 409);
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(retry.body()).isEqualTo("slow run 1");
    assertThat(retry.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(slowRuns.get()).isEqualTo(1);
    assertThat(slowStarts.get()).isEqualTo(1);
  }

  /**
   * Hardening item 5b: a handler that never completes ({@code Mono.never()}), whose client left, is
   * cancelled at the rule's max-hold (1 s here), what it wrote is freed, and its key is settled as
   * the rule's on-ambiguous-failure says ({@code block} here): the retry is answered 409
   * request-blocked without running the handler again.
   */
  @Test
  void aHandlerThatNeverCompletesIsCancelledAtItsBoundAndItsKeySettled() throws Exception {
    String key = UUID.randomUUID().toString();
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket
          .getOutputStream()
          .write(
              ("POST /bounded/never HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: "
                      + key
                      + "\r\nContent-Length: 1\r\n\r\nx")
                  .getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      assertThat(neverStarted.await(10, TimeUnit.SECONDS)).isTrue();
    } // the client leaves
    HttpResponse<String> busy = post("/bounded/never", key, null);
    HttpResponse<String> retry = busy;
    if (neverCancelled.getCount() > 0) {
      assertThat(busy.statusCode()).isEqualTo(409); // still held: the handler runs on
      assertThat(busy.body()).contains("request-in-progress");
    }
    assertThat(neverCancelled.await(30, TimeUnit.SECONDS)).as("the handler is cancelled").isTrue();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    do {
      assertThat(System.nanoTime()).isLessThan(deadline);
      retry = post("/bounded/never", key, null);
    } while (retry.statusCode() == 409 && retry.body().contains("request-in-progress"));
    assertThat(retry.statusCode()).isEqualTo(409);
    assertThat(retry.body()).contains("/request-blocked\"");
    assertThat(retry.headers().firstValue("Retry-After")).isEmpty();
    assertThat(neverResponse.heldBytes()).as("the captured bytes are freed").isZero();
    assertThat(neverRuns.get()).isEqualTo(1);
  }

  /**
   * A server-sent-event stream flows through the filter as it is written: its first event reaches
   * the client while the stream is still open; it is not recorded, its key is completed, and a
   * repeat gets 409 response-streamed without running it again.
   */
  @Test
  void aStreamFlowsThroughAsItIsWrittenAndARepeatIsToldItWasAStream() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/stream"))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString("x"))
            .build();
    HttpResponse<java.util.stream.Stream<String>> streaming =
        http.send(request, HttpResponse.BodyHandlers.ofLines());
    java.util.Iterator<String> lines = streaming.body().iterator();
    assertThat(streaming.statusCode()).isEqualTo(200);
    assertThat(lines.next()).isEqualTo("data: 1"); // before the stream ends: its gate is shut
    assertThat(streamGate.isDone()).isFalse();
    streamGate.complete(null);
    assertThat(lines.next()).isEmpty();
    assertThat(lines.next()).isEqualTo("data: 2");
    streaming.body().close();
    HttpResponse<String> again;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    do {
      assertThat(System.nanoTime()).isLessThan(deadline);
      again = http.send(request, HttpResponse.BodyHandlers.ofString());
    } while (again.statusCode() == 409 && again.body().contains("request-in-progress"));
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.body()).contains("/response-streamed\"");
    assertThat(streamRuns.get()).isEqualTo(1);
  }

  /** The filter read the body; the application still gets multipart data parsed from it. */
  @Test
  void multipartDataIsParsedFromTheBodyTheFilterRead() throws Exception {
    String key = UUID.randomUUID().toString();
    String body =
        "--b0undary\r\n"
            + "Content-Disposition: form-data; name=\"item\"\r\n\r\n"
            + "book\r\n"
            + "--b0undary--\r\n";
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/upload"))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", key)
            .header("Content-Type", "multipart/form-data; boundary=b0undary")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> first = http.send(request, HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> again = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(first.body()).isEqualTo("item book, upload run 1");
    assertThat(again.body()).isEqualTo("item book, upload run 1");
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
  }

  private static Mono<Void> write(ServerHttpResponse res, String text) {
    res.getHeaders().set("Content-Type", "text/plain");
    return res.writeWith(
        Mono.just(res.bufferFactory().wrap(text.getBytes(StandardCharsets.UTF_8))));
  }

  private HttpResponse<String> post(String path, String key, Duration timeout) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .timeout(timeout != null ? timeout : Duration.ofSeconds(30))
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString("x"));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
