package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.FRESH_TTL;
import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REDIS_URL_VARIABLE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;
import static dev.idempotent.benchmarks.BenchmarkSettings.RETAINED_TTL;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.web.IdempotencyFilter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Target 6: a POST through {@link IdempotencyFilter} (buffer the request, fingerprint it, claim,
 * run the servlet into a captured response, record status, headers and body, send) against the same
 * endpoint with the store calls written by hand ({@link HandWrittenServlet}: claim, run, record
 * status and body, send), fresh keys and replays, on the memory store or on Redis ({@code
 * IDEMPOTENT_REDIS_URL}, as the Redis benchmarks). No servlet container: both sides get the same
 * light request and response ({@link BenchExchange}), so what differs is the filter against the
 * hand-written calls.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class WebFilterBenchmarks {
  static final long MAXIMUM_SIZE = 100_000;

  /** {@code memory} or {@code redis}. */
  @Param({"memory", "redis"})
  public String store;

  private RedissonClient redisson;
  private IdempotencyStore filterStore;
  private IdempotencyStore baselineStore;
  private IdempotencyFilter freshFilter;
  private IdempotencyFilter retainedFilter;
  private HandWrittenServlet freshBaseline;
  private HandWrittenServlet retainedBaseline;
  private String[] replayKeys;
  private byte[][] replayBodies;

  /** The endpoint behind the filter: reads the body, answers 201 with JSON. */
  private static final class FilteredServlet implements FilterChain {
    private final byte[] scratch = new byte[1024];

    @Override
    public void doFilter(jakarta.servlet.ServletRequest req, jakarta.servlet.ServletResponse res)
        throws IOException {
      HttpServletRequest request = (HttpServletRequest) req;
      HttpServletResponse response = (HttpServletResponse) res;
      OrderEndpoint.readBody(request.getInputStream(), scratch);
      byte[] body = OrderEndpoint.responseBody(request.getHeader(HttpIdempotency.KEY_HEADER));
      response.setStatus(OrderEndpoint.CREATED);
      response.setContentType(OrderEndpoint.CONTENT_TYPE);
      response.setContentLength(body.length);
      response.getOutputStream().write(body);
    }
  }

  /** One thread's request and response, recycled, and its endpoint. */
  @State(Scope.Thread)
  public static class Exchanges {
    final BenchExchange exchange = new BenchExchange();
    final FilteredServlet servlet = new FilteredServlet();
    final byte[] scratch = new byte[1024];
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException, ServletException {
    switch (store) {
      case "memory" -> {
        filterStore = CaffeineIdempotencyStore.builder().maximumSize(MAXIMUM_SIZE).build();
        baselineStore = CaffeineIdempotencyStore.builder().maximumSize(MAXIMUM_SIZE).build();
      }
      case "redis" -> {
        Config config = new Config();
        config.useSingleServer().setAddress(BenchmarkSettings.address(REDIS_URL_VARIABLE));
        try {
          redisson = Redisson.create(config);
        } catch (RuntimeException e) {
          throw new IllegalStateException(
              "cannot reach Redis; set " + REDIS_URL_VARIABLE + ": " + e, e);
        }
        filterStore = RedissonIdempotencyStore.builder(redisson).keyPrefix("bench:web:").build();
        baselineStore = filterStore;
      }
      default ->
          throw new IllegalArgumentException("unknown store '" + store + "': use memory or redis");
    }
    Idempotency idempotency =
        Idempotency.create(IdempotencyConfig.builder().defaultStore(filterStore).build());
    freshFilter = filter(idempotency, "bench.web.fresh", FRESH_TTL);
    retainedFilter = filter(idempotency, "bench.web.retained", RETAINED_TTL);
    freshBaseline = new HandWrittenServlet(baselineStore, LEASE, FRESH_TTL);
    retainedBaseline = new HandWrittenServlet(baselineStore, LEASE, RETAINED_TTL);
    replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);
    replayBodies = new byte[replayKeys.length][];
    Exchanges setup = new Exchanges();
    for (int i = 0; i < replayKeys.length; i++) {
      replayBodies[i] = OrderEndpoint.requestBody(replayKeys[i]);
      retainedFilter.doFilter(
          setup.exchange.post(OrderEndpoint.PATH, replayKeys[i], replayBodies[i]).request,
          setup.exchange.response,
          setup.servlet);
      require(
          setup.exchange.response,
          OrderEndpoint.CREATED,
          false,
          "the filter's first call of " + replayKeys[i]);
      retainedBaseline.service(
          setup.exchange.post(OrderEndpoint.PATH, replayKeys[i], replayBodies[i]).request,
          setup.exchange.response,
          "setup-" + i,
          setup.scratch);
      require(
          setup.exchange.response,
          OrderEndpoint.CREATED,
          false,
          "the baseline's first call of " + replayKeys[i]);
    }
    retainedFilter.doFilter(
        setup.exchange.post(OrderEndpoint.PATH, replayKeys[0], replayBodies[0]).request,
        setup.exchange.response,
        setup.servlet);
    require(
        setup.exchange.response,
        OrderEndpoint.CREATED,
        true,
        "the filter's repeat of " + replayKeys[0]);
    retainedBaseline.service(
        setup.exchange.post(OrderEndpoint.PATH, replayKeys[0], replayBodies[0]).request,
        setup.exchange.response,
        "setup-repeat",
        setup.scratch);
    require(
        setup.exchange.response,
        OrderEndpoint.CREATED,
        true,
        "the baseline's repeat of " + replayKeys[0]);
  }

  private static IdempotencyFilter filter(Idempotency idempotency, String scope, Duration ttl) {
    return IdempotencyFilter.builder(
            HttpIdempotency.builder()
                .idempotency(idempotency)
                .rule(
                    IdempotencyRule.builder(scope)
                        .paths(OrderEndpoint.PATH)
                        .ttl(ttl)
                        .lease(LEASE)
                        .build())
                .build())
        .build();
  }

  /**
   * Fails the set-up unless the response is {@code status}, replayed or not as expected, with a
   * JSON body.
   */
  private static void require(
      BenchExchange.Response response, int status, boolean replayed, String what) {
    boolean isReplay = "true".equals(response.getHeader(HttpIdempotency.REPLAYED_HEADER));
    if (response.getStatus() != status
        || isReplay != replayed
        || response.sentLength() == 0
        || response.firstByte() != '{') {
      throw new IllegalStateException(
          what
              + " answered "
              + response.getStatus()
              + (isReplay ? " (replayed)" : "")
              + " with "
              + response.sentLength()
              + " body bytes; expected "
              + status
              + (replayed ? " replayed" : ""));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    filterStore.close();
    if (baselineStore != filterStore) {
      baselineStore.close();
    }
    if (redisson != null) {
      redisson.shutdown();
    }
  }

  /** Ours, fresh: a POST with a new key through the filter. */
  @Benchmark
  public int freshFilter(Exchanges t, KeyStreams.FreshKeys keys)
      throws IOException, ServletException {
    String key = keys.next();
    BenchExchange e = t.exchange.post(OrderEndpoint.PATH, key, OrderEndpoint.requestBody(key));
    freshFilter.doFilter(e.request, e.response, t.servlet);
    return e.response.getStatus() + e.response.sentLength();
  }

  /** Baseline, fresh: the same POST to the hand-written servlet. */
  @Benchmark
  public int freshBaseline(Exchanges t, KeyStreams.FreshKeys keys) throws IOException {
    String key = keys.next();
    BenchExchange e = t.exchange.post(OrderEndpoint.PATH, key, OrderEndpoint.requestBody(key));
    freshBaseline.service(e.request, e.response, keys.owner(), t.scratch);
    return e.response.getStatus() + e.response.sentLength();
  }

  /** Ours, replay: a repeat of a recorded POST through the filter. */
  @Benchmark
  public int replayFilter(Exchanges t, KeyStreams.ReplayCursor cursor)
      throws IOException, ServletException {
    int i = cursor.nextIndex(replayKeys.length);
    BenchExchange e = t.exchange.post(OrderEndpoint.PATH, replayKeys[i], replayBodies[i]);
    retainedFilter.doFilter(e.request, e.response, t.servlet);
    return e.response.getStatus() + e.response.sentLength();
  }

  /** Baseline, replay: the same repeat to the hand-written servlet. */
  @Benchmark
  public int replayBaseline(Exchanges t, KeyStreams.ReplayCursor cursor) throws IOException {
    int i = cursor.nextIndex(replayKeys.length);
    BenchExchange e = t.exchange.post(OrderEndpoint.PATH, replayKeys[i], replayBodies[i]);
    retainedBaseline.service(e.request, e.response, "replay", t.scratch);
    return e.response.getStatus() + e.response.sentLength();
  }
}
