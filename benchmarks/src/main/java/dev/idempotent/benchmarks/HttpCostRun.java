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
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The cost of {@link IdempotencyFilter} in a real servlet container, over loopback HTTP: an
 * embedded Jetty (ee10) on 127.0.0.1 serves one order endpoint (reads the JSON body, answers 201
 * with a JSON body and a {@code Location}) unprotected, behind the library's filter and behind a
 * hand-written filter doing the same work on the same store ({@link HandWrittenIdempotencyFilter}),
 * on the memory store and on Redis ({@code IDEMPOTENT_REDIS_URL}, default {@code
 * redis://127.0.0.1:6379}). A closed-loop load generator in the same JVM ({@link
 * LoopbackHttpConnection}, 1 and 16 keep-alive connections) sends fresh keys (a new {@code
 * Idempotency-Key} per request) or replays (1,024 keys recorded before), records every latency in
 * an HdrHistogram and checks every answer (201, a {@code Location}, a JSON body, replayed exactly
 * when it should be); a wrong answer stops the run.
 *
 * <p>The variants of a cell run one after another (unprotected, library, hand-written), and that is
 * repeated; the report gives, per cell, the median and range over the repetitions of throughput,
 * p50 and p99, the JVM's CPU time per request (server, filters and load generator together, so on a
 * shared machine the steadiest measure of what a filter adds; a Redis server's CPU is not in it),
 * and of the per-repetition ratios library/hand-written. Defaults: every variant first warmed up 5
 * s, then per cell 2 s of warm-up and 4 s measured, 3 rounds (about 8 minutes with both stores);
 * {@code --long}: 15 s, then 5 s and 10 s per cell (about 20 minutes).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.HttpCostRun
 *     [--long] [--first-warmup S] [--warmup S] [--measure S] [--rounds N] [--stores memory,redis]
 *     [--modes fresh,replay] [--connections 1,16]
 * </pre>
 */
public final class HttpCostRun {
  private static final String RUN =
      Long.toString(System.currentTimeMillis(), 36)
          + Long.toString(System.nanoTime() & 0xFFFFF, 36);
  private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  enum Variant {
    UNPROTECTED("unprotected"),
    LIBRARY("IdempotencyFilter"),
    HAND_WRITTEN("hand-written filter");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  enum Mode {
    FRESH,
    REPLAY;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One measurement: requests answered in the measured window and their latencies. */
  record Measurement(
      long requests, double seconds, Histogram latencies, long gcMillis, double cpuMicros) {
    double throughput() {
      return requests / seconds;
    }

    double p50Micros() {
      return latencies.getValueAtPercentile(50) / 1000.0;
    }

    double p99Micros() {
      return latencies.getValueAtPercentile(99) / 1000.0;
    }

    /** The JVM's CPU time (server, filters, client) per request, warm-up included. */
    double cpuMicrosPerRequest() {
      return cpuMicros;
    }

    double p999Micros() {
      return latencies.getValueAtPercentile(99.9) / 1000.0;
    }
  }

  record Cell(String store, Mode mode, int connections) {}

  private final int port;
  private final String[] replayKeys = new String[REPLAY_KEYS];
  private final byte[][] replayBodies = new byte[REPLAY_KEYS][];
  private long cells;

  private HttpCostRun(int port) {
    this.port = port;
    for (int i = 0; i < REPLAY_KEYS; i++) {
      replayKeys[i] = "r" + RUN + "-" + i;
      replayBodies[i] = OrderEndpoint.requestBody(replayKeys[i]);
    }
  }

  /** The endpoint: reads the body, answers 201 with a JSON body and a {@code Location}. */
  static final class OrderServlet extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      OrderEndpoint.readBody(request.getInputStream(), new byte[1024]);
      String key = request.getHeader(HttpIdempotency.KEY_HEADER);
      String order = key == null ? "anonymous" : key;
      byte[] body = OrderEndpoint.responseBody(order);
      response.setStatus(OrderEndpoint.CREATED);
      response.setContentType(OrderEndpoint.CONTENT_TYPE);
      response.setHeader("Location", "/orders/" + order);
      response.setContentLength(body.length);
      response.getOutputStream().write(body);
    }
  }

  static String path(Variant variant, String store, Mode mode) {
    return switch (variant) {
      case UNPROTECTED -> "/plain/orders";
      case LIBRARY -> "/library/" + store + "/" + mode.label();
      case HAND_WRITTEN -> "/hand/" + store + "/" + mode.label();
    };
  }

  public static void main(String[] args) throws Exception {
    double warmup = 2;
    double measure = 4;
    double firstWarmup = 5;
    int rounds = 3;
    List<String> stores = List.of("memory", "redis");
    List<Mode> modes = List.of(Mode.FRESH, Mode.REPLAY);
    List<Integer> connections = List.of(1, 16);
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--long" -> {
          warmup = 5;
          measure = 10;
          firstWarmup = 15;
        }
        case "--first-warmup" -> firstWarmup = Double.parseDouble(value(args, ++i, arg));
        case "--warmup" -> warmup = Double.parseDouble(value(args, ++i, arg));
        case "--measure" -> measure = Double.parseDouble(value(args, ++i, arg));
        case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, arg));
        case "--stores" -> stores = List.of(value(args, ++i, arg).split(","));
        case "--modes" ->
            modes =
                Arrays.stream(value(args, ++i, arg).split(","))
                    .map(m -> Mode.valueOf(m.trim().toUpperCase(Locale.ROOT)))
                    .toList();
        case "--connections" ->
            connections =
                Arrays.stream(value(args, ++i, arg).split(","))
                    .map(c -> Integer.parseInt(c.trim()))
                    .toList();
        default ->
            throw new IllegalArgumentException(
                "unknown option '"
                    + arg
                    + "': use --long, --first-warmup S, --warmup S, --measure S, --rounds N,"
                    + " --stores memory,redis,"
                    + " --modes fresh,replay, --connections 1,16");
      }
    }
    for (String store : stores) {
      if (!store.equals("memory") && !store.equals("redis")) {
        throw new IllegalArgumentException("unknown store '" + store + "': use memory or redis");
      }
    }

    List<AutoCloseable> resources = new ArrayList<>();
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    for (String store : stores) {
      for (Mode mode : Mode.values()) {
        IdempotencyStore idempotencyStore = store(store, mode, resources);
        Duration ttl = mode == Mode.FRESH ? FRESH_TTL : RETAINED_TTL;
        Idempotency idempotency =
            Idempotency.create(IdempotencyConfig.builder().defaultStore(idempotencyStore).build());
        String libraryPath = path(Variant.LIBRARY, store, mode);
        Filter library =
            IdempotencyFilter.builder(
                    HttpIdempotency.builder()
                        .idempotency(idempotency)
                        .rule(
                            IdempotencyRule.builder("http.library." + store + "." + mode.label())
                                .paths(libraryPath)
                                .ttl(ttl)
                                .lease(LEASE)
                                .build())
                        .build())
                .build();
        Filter handWritten =
            new HandWrittenIdempotencyFilter(
                idempotencyStore, "http.hand." + store + "." + mode.label(), LEASE, ttl);
        context.addFilter(
            new FilterHolder(library), libraryPath, EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(
            new FilterHolder(handWritten),
            path(Variant.HAND_WRITTEN, store, mode),
            EnumSet.of(DispatcherType.REQUEST));
      }
    }
    context.addServlet(new ServletHolder(new OrderServlet()), "/*");
    server.setHandler(context);
    server.start();
    try {
      HttpCostRun run = new HttpCostRun(connector.getLocalPort());
      System.out.printf(
          Locale.ROOT,
          "HttpCostRun %s: Jetty %s on 127.0.0.1:%d, Java %s, %d cores; first warm-up %.0f s per"
              + " variant, then warm-up %.0f s and %.0f s measured per cell, %d rounds; Redis %s%n",
          Instant.now(),
          Server.getVersion(),
          run.port,
          Runtime.version(),
          Runtime.getRuntime().availableProcessors(),
          firstWarmup,
          warmup,
          measure,
          rounds,
          stores.contains("redis") ? BenchmarkSettings.address(REDIS_URL_VARIABLE) : "not used");
      for (String store : stores) {
        run.verify(store);
      }
      int most = connections.stream().mapToInt(Integer::intValue).max().orElse(1);
      for (String store : stores) {
        for (Mode mode : modes) {
          for (Variant variant : Variant.values()) {
            run.measure(new Cell(store, mode, most), variant, firstWarmup, 0.001);
          }
        }
      }
      Map<Cell, Map<Variant, List<Measurement>>> results = new LinkedHashMap<>();
      for (String store : stores) {
        for (Mode mode : modes) {
          for (int connectionCount : connections) {
            Cell cell = new Cell(store, mode, connectionCount);
            Map<Variant, List<Measurement>> byVariant = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
              for (Variant variant : Variant.values()) {
                Measurement m = run.measure(cell, variant, warmup, measure);
                byVariant.computeIfAbsent(variant, v -> new ArrayList<>()).add(m);
                System.out.printf(
                    Locale.ROOT,
                    "%s %s %2d conn round %d %-20s %,10.0f req/s  p50 %8.1f µs  p99 %8.1f µs"
                        + "  p99.9 %8.1f µs  CPU %6.1f µs/req  GC %4d ms%n",
                    store,
                    mode.label(),
                    connectionCount,
                    round,
                    variant.label,
                    m.throughput(),
                    m.p50Micros(),
                    m.p99Micros(),
                    m.p999Micros(),
                    m.cpuMicrosPerRequest(),
                    m.gcMillis());
              }
            }
            results.put(cell, byVariant);
          }
        }
      }
      report(results);
    } finally {
      server.stop();
      for (AutoCloseable resource : resources) {
        resource.close();
      }
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  /**
   * The memory store of fresh keys holds at most this many records: it is full after a second or
   * two of load and evicts from then on, as a store at its bound does, while the records it keeps
   * stay few enough that the collector's work on them does not swamp what is measured.
   */
  private static final int FRESH_MEMORY_RECORDS = 20_000;

  private static RedissonClient redisson;
  private static IdempotencyStore redisStore;

  /**
   * The store of a cell: on the memory store fresh keys and replays get a store each, so that fresh
   * records (evicted past the maximum size, oldest completion first) never evict the recorded
   * replays; on Redis one store for both. The library's filter and the hand-written one share it.
   */
  private static IdempotencyStore store(String store, Mode mode, List<AutoCloseable> resources) {
    if (store.equals("memory")) {
      CaffeineIdempotencyStore memory =
          CaffeineIdempotencyStore.builder()
              .maximumSize(mode == Mode.FRESH ? FRESH_MEMORY_RECORDS : 4 * REPLAY_KEYS)
              .build();
      resources.add(memory);
      return memory;
    }
    if (redisStore == null) {
      Config config = new Config();
      config.useSingleServer().setAddress(BenchmarkSettings.address(REDIS_URL_VARIABLE));
      try {
        redisson = Redisson.create(config);
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "cannot reach Redis at "
                + BenchmarkSettings.address(REDIS_URL_VARIABLE)
                + "; start one or set "
                + REDIS_URL_VARIABLE
                + ": "
                + e,
            e);
      }
      redisStore = RedissonIdempotencyStore.builder(redisson).keyPrefix("bench:http:").build();
      resources.add(redisStore);
      resources.add(redisson::shutdown);
    }
    return redisStore;
  }

  /**
   * Records the replay keys on both protected variants of {@code store} and checks that each
   * answers as the run expects: a first request runs, its repeat is replayed, the same key with
   * another body is refused with 422.
   */
  private void verify(String store) throws IOException {
    try (LoopbackHttpConnection connection = new LoopbackHttpConnection(port)) {
      for (Variant variant : List.of(Variant.LIBRARY, Variant.HAND_WRITTEN)) {
        String replayPath = path(variant, store, Mode.REPLAY);
        for (int i = 0; i < REPLAY_KEYS; i++) {
          expect(
              connection.post(replayPath, replayKeys[i], replayBodies[i]),
              variant,
              Mode.FRESH,
              "the first request of " + replayKeys[i] + " to " + replayPath);
        }
        expect(
            connection.post(replayPath, replayKeys[0], replayBodies[0]),
            variant,
            Mode.REPLAY,
            "the repeat of " + replayKeys[0] + " to " + replayPath);
        LoopbackHttpConnection.Answer other =
            connection.post(replayPath, replayKeys[0], replayBodies[1]);
        if (other.status() != 422) {
          throw new IllegalStateException(
              variant.label
                  + " answered "
                  + other.status()
                  + " to a reused key with another body at "
                  + replayPath
                  + "; expected 422");
        }
        String freshPath = path(variant, store, Mode.FRESH);
        String key = "v" + RUN + "-" + variant.ordinal();
        byte[] body = OrderEndpoint.requestBody(key);
        expect(connection.post(freshPath, key, body), variant, Mode.FRESH, "a first request");
        expect(connection.post(freshPath, key, body), variant, Mode.REPLAY, "its repeat");
      }
    }
  }

  private static void expect(
      LoopbackHttpConnection.Answer answer, Variant variant, Mode mode, String what) {
    boolean replayExpected = variant != Variant.UNPROTECTED && mode == Mode.REPLAY;
    if (answer.status() != OrderEndpoint.CREATED
        || answer.replayed() != replayExpected
        || answer.location() == null
        || !answer.location().startsWith("/orders/")
        || answer.bodyLength() == 0
        || answer.firstByte() != '{') {
      throw new IllegalStateException(
          variant.label
              + ", "
              + what
              + ": answered "
              + answer
              + "; expected 201"
              + (replayExpected ? " replayed" : " not replayed")
              + " with a Location and a JSON body");
    }
  }

  /**
   * Runs {@code cell}'s load on {@code variant}: every connection warms up for {@code warmup}
   * seconds, then its requests started in the next {@code measure} seconds are counted and their
   * latencies recorded.
   */
  private Measurement measure(Cell cell, Variant variant, double warmup, double measure)
      throws Exception {
    String path = path(variant, cell.store(), cell.mode());
    long cellId = ++cells;
    int n = cell.connections();
    Histogram[] histograms = new Histogram[n];
    long[] counts = new long[n];
    long[] allCounts = new long[n];
    long[] window = new long[2];
    CyclicBarrier start =
        new CyclicBarrier(
            n,
            () -> {
              window[0] = System.nanoTime() + (long) (warmup * 1e9);
              window[1] = window[0] + (long) (measure * 1e9);
            });
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long gcBefore = gcMillis();
    long cpuBefore = PROCESS.getProcessCpuTime();
    Thread[] threads = new Thread[n];
    for (int t = 0; t < n; t++) {
      int thread = t;
      histograms[t] = new Histogram(HIGHEST_NANOS, 3);
      threads[t] =
          new Thread(
              () -> {
                try (LoopbackHttpConnection connection = new LoopbackHttpConnection(port)) {
                  start.await();
                  long measuredFrom = window[0];
                  long end = window[1];
                  String prefix = "f" + RUN + "-" + cellId + "-" + thread + "-";
                  int replay = thread * 131;
                  Histogram histogram = histograms[thread];
                  long count = 0;
                  long all = 0;
                  for (long i = 0; failure.get() == null; i++) {
                    String key;
                    byte[] body;
                    if (cell.mode() == Mode.FRESH) {
                      key = prefix + i;
                      body = OrderEndpoint.requestBody(key);
                    } else {
                      int k = replay++ & (REPLAY_KEYS - 1);
                      key = replayKeys[k];
                      body = replayBodies[k];
                    }
                    long before = System.nanoTime();
                    if (before >= end) {
                      break;
                    }
                    LoopbackHttpConnection.Answer answer = connection.post(path, key, body);
                    long after = System.nanoTime();
                    all++;
                    expect(answer, variant, cell.mode(), "request " + key + " to " + path);
                    if (before >= measuredFrom) {
                      histogram.recordValue(Math.min(after - before, HIGHEST_NANOS));
                      count++;
                    }
                  }
                  counts[thread] = count;
                  allCounts[thread] = all;
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                  start.reset();
                }
              },
              "http-cost-" + thread);
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          cell + " " + variant.label + " failed: " + failure.get(), failure.get());
    }
    long cpu = PROCESS.getProcessCpuTime() - cpuBefore;
    Histogram all = new Histogram(HIGHEST_NANOS, 3);
    long requests = 0;
    long sent = 0;
    for (int t = 0; t < n; t++) {
      all.add(histograms[t]);
      requests += counts[t];
      sent += allCounts[t];
    }
    return new Measurement(
        requests, measure, all, gcMillis() - gcBefore, cpu / 1000.0 / Math.max(1, sent));
  }

  /** The time this JVM's collectors have spent collecting so far (warm-up included). */
  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  private static void report(Map<Cell, Map<Variant, List<Measurement>>> results) {
    System.out.println();
    System.out.println(
        "Medians over the rounds, range (min–max) in brackets; latencies in µs, per request as"
            + " each connection waits for it.");
    System.out.println();
    System.out.println(
        "| store | keys | connections | variant | requests/s | p50 µs | p99 µs |"
            + " JVM CPU µs/request | against unprotected (requests/s) |");
    System.out.println("|---|---|--:|---|--:|--:|--:|--:|--:|");
    for (Map.Entry<Cell, Map<Variant, List<Measurement>>> entry : results.entrySet()) {
      Cell cell = entry.getKey();
      List<Measurement> plain = entry.getValue().get(Variant.UNPROTECTED);
      for (Map.Entry<Variant, List<Measurement>> row : entry.getValue().entrySet()) {
        List<Measurement> ms = row.getValue();
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %d | %s | %s | %s | %s | %s | %s |%n",
            cell.store(),
            cell.mode().label(),
            cell.connections(),
            row.getKey().label,
            summary(ms, Measurement::throughput, "%,.0f"),
            summary(ms, Measurement::p50Micros, "%,.0f"),
            summary(ms, Measurement::p99Micros, "%,.0f"),
            summary(ms, Measurement::cpuMicrosPerRequest, "%,.1f"),
            row.getKey() == Variant.UNPROTECTED
                ? "1.00x"
                : ratios(ms, plain, Measurement::throughput));
      }
    }
    System.out.println();
    System.out.println(
        "Library against hand-written filter, the ratio of each round (medians, range in"
            + " brackets); target: throughput ≥ 0.90x, p99 ≤ 1.10x.");
    System.out.println();
    System.out.println(
        "| store | keys | connections | throughput | p50 | p99 | JVM CPU per request |"
            + " throughput ≥ 0.90x | p99 ≤ 1.10x |");
    System.out.println("|---|---|--:|--:|--:|--:|--:|---|---|");
    for (Map.Entry<Cell, Map<Variant, List<Measurement>>> entry : results.entrySet()) {
      Cell cell = entry.getKey();
      List<Measurement> library = entry.getValue().get(Variant.LIBRARY);
      List<Measurement> hand = entry.getValue().get(Variant.HAND_WRITTEN);
      double throughput = median(ratioList(library, hand, Measurement::throughput));
      double p99 = median(ratioList(library, hand, Measurement::p99Micros));
      System.out.printf(
          Locale.ROOT,
          "| %s | %s | %d | %s | %s | %s | %s | %s | %s |%n",
          cell.store(),
          cell.mode().label(),
          cell.connections(),
          ratios(library, hand, Measurement::throughput),
          ratios(library, hand, Measurement::p50Micros),
          ratios(library, hand, Measurement::p99Micros),
          ratios(library, hand, Measurement::cpuMicrosPerRequest),
          throughput >= 0.9 ? "PASS" : "MISS",
          p99 <= 1.1 ? "PASS" : "MISS");
    }
  }

  private static String summary(
      List<Measurement> ms, ToDoubleFunction<Measurement> metric, String format) {
    double[] values = ms.stream().mapToDouble(metric).sorted().toArray();
    return String.format(Locale.ROOT, format, median(values))
        + " ("
        + String.format(Locale.ROOT, format, values[0])
        + "–"
        + String.format(Locale.ROOT, format, values[values.length - 1])
        + ")";
  }

  private static double[] ratioList(
      List<Measurement> a, List<Measurement> b, ToDoubleFunction<Measurement> metric) {
    double[] r = new double[a.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = metric.applyAsDouble(a.get(i)) / metric.applyAsDouble(b.get(i));
    }
    Arrays.sort(r);
    return r;
  }

  private static String ratios(
      List<Measurement> a, List<Measurement> b, ToDoubleFunction<Measurement> metric) {
    double[] r = ratioList(a, b, metric);
    return String.format(Locale.ROOT, "%.2fx (%.2f–%.2f)", median(r), r[0], r[r.length - 1]);
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
