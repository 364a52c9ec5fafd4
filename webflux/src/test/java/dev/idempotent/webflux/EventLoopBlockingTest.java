package dev.idempotent.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.OnInProgress;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.http.conformance.HttpConformanceSuite;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.TestBackends;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.config.Config;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.blockhound.BlockHound;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * No blocking call on a non-blocking thread (Reactor Netty's event loops, Redisson's, Reactor's
 * parallel scheduler), as BlockHound sees it, while the web filter protects requests on the memory
 * store and on Redis: run, replay, 409, waiting for a key in progress, 413. A handler that blocks
 * on purpose shows that BlockHound watches these threads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EventLoopBlockingTest {
  private static final List<String> BLOCKING = new CopyOnWriteArrayList<>();
  private final HttpClient http = HttpConformanceSuite.client(null);

  @BeforeAll
  static void installBlockHound() {
    BlockHound.builder()
        // the event loops of the server and of the Redis client, by name (beside Reactor's own
        // non-blocking schedulers)
        .nonBlockingThreadPredicate(
            p ->
                p.or(
                    t ->
                        t.getName().startsWith("reactor-http-")
                            || t.getName().startsWith("redisson-netty")))
        // core's owner tokens draw 64 random bits from the OS once per JVM, in their class's
        // initialisation; nothing on the request path after that
        .allowBlockingCallsInside("dev.idempotent.internal.OwnerTokens", "<clinit>")
        // a lock another thread holds for a moment (timer queues, caches) may park the caller
        // briefly: contention, not a wait for I/O or time; every other park still counts
        .allowBlockingCallsInside("java.util.concurrent.locks.ReentrantLock", "lock")
        .blockingMethodCallback(m -> BLOCKING.add(m + " on " + Thread.currentThread().getName()))
        .install();
  }

  @Test
  void theMemoryStorePathNeverBlocksAnEventLoop() throws Exception {
    try (IdempotencyStore store = CaffeineIdempotencyStore.builder().build()) {
      exercise(store);
    }
  }

  @Test
  void theRedisPathNeverBlocksAnEventLoop() throws Exception {
    String variable = "IDEMPOTENT_REDIS_URL";
    Optional<String> url = TestBackends.configuredOrLocal(variable, "redis://127.0.0.1:6379", 6379);
    if (url.isEmpty()) {
      TestBackends.missing(variable, "redis://127.0.0.1:6379", 6379);
    }
    Config config = new Config();
    config.useSingleServer().setAddress(url.orElseThrow());
    try (IdempotencyStore store =
        RedissonIdempotencyStore.builder(Redisson.create(config))
            .keyPrefix("idem-webflux-blocking:" + UUID.randomUUID() + ":")
            .shutdownClientOnClose(true)
            .build()) {
      exercise(store);
    }
  }

  private void exercise(IdempotencyStore store) throws Exception {
    HttpIdempotency protocol =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build()))
            .rule(
                IdempotencyRule.builder("api")
                    .paths("/api/*")
                    .key(IdempotencyRule.Key.REQUIRED)
                    .maxRequestBodyBytes(1024)
                    .build())
            .rule(
                IdempotencyRule.builder("wait")
                    .paths("/wait/*")
                    .onInProgress(OnInProgress.WAIT)
                    .build())
            .build();
    ConformanceHandler app = new ConformanceHandler();
    // docs/web.md: installing the web filter (begin)
    HttpHandler handler =
        WebHttpHandlerBuilder.webHandler(app)
            .filter(IdempotencyWebFilter.builder(protocol).build())
            .build();
    // docs/web.md: installing the web filter (end)
    DisposableServer server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(new ReactorHttpHandlerAdapter(handler))
            .bindNow();
    try {
      URI base = URI.create("http://127.0.0.1:" + server.port());
      BLOCKING.clear();

      String key = UUID.randomUUID().toString();
      assertThat(post(base, "/api/orders", key, new byte[100]).statusCode()).isEqualTo(201);
      HttpResponse<byte[]> replayed = post(base, "/api/orders", key, new byte[100]);
      assertThat(replayed.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
      assertThat(
              post(base, "/api/large", UUID.randomUUID().toString(), new byte[2048]).statusCode())
          .isEqualTo(413);

      String busy = UUID.randomUUID().toString();
      List<CompletableFuture<HttpResponse<byte[]>>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(send(base, "/api/concurrent?ms=300", busy));
        all.add(send(base, "/wait/slow?ms=300", busy));
      }
      List<Integer> statuses = new ArrayList<>();
      for (CompletableFuture<HttpResponse<byte[]>> f : all) {
        statuses.add(f.get(30, TimeUnit.SECONDS).statusCode());
      }
      assertThat(statuses).contains(409).containsOnly(200, 409);
      assertThat(app.runs("/api/concurrent")).isEqualTo(1);
      assertThat(app.runs("/wait/slow")).isEqualTo(1);

      assertThat(BLOCKING).as("blocking calls on non-blocking threads").isEmpty();

      // the watch is on: a handler that sleeps on the event loop is seen
      post(base, "/api/block", UUID.randomUUID().toString(), new byte[0]);
      assertThat(BLOCKING).anySatisfy(call -> assertThat(call).contains("sleep"));
    } finally {
      server.disposeNow();
    }
  }

  private CompletableFuture<HttpResponse<byte[]>> send(URI base, String path, String key) {
    return http.sendAsync(
        request(base, path, key, new byte[0]), HttpResponse.BodyHandlers.ofByteArray());
  }

  private HttpResponse<byte[]> post(URI base, String path, String key, byte[] body)
      throws Exception {
    return http.send(request(base, path, key, body), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static HttpRequest request(URI base, String path, String key, byte[] body) {
    return HttpRequest.newBuilder(base.resolve(path))
        .timeout(Duration.ofSeconds(30))
        .header("Idempotency-Key", key)
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }
}
