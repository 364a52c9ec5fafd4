package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.DYNAMODB_URL_VARIABLE;
import static dev.idempotent.benchmarks.BenchmarkSettings.NATS_URL_VARIABLE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REDIS_URL_VARIABLE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.MessageOutcome;
import dev.idempotent.nats.NatsIdempotencyStore;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Latency of one woven call, per store and path, at 1 and 16 threads: p50, p99 and p99.9 from an
 * HdrHistogram of every call's time (closed loop: each thread makes its next call when the last has
 * returned). Paths:
 *
 * <ul>
 *   <li>{@code fresh}: a key never seen before ({@link OrderService#submit}): claim, body,
 *       completion;
 *   <li>{@code replay}: one of 1,024 completed keys ({@link OrderService#submitRetained});
 *   <li>{@code in-progress}: a key whose claim another call holds ({@link LatencyService#hold}):
 *       refused at once with {@link IdempotencyInProgressException};
 *   <li>{@code mono-fresh} and {@code mono-replay}: the same two through a method returning a
 *       {@code Mono} ({@link ReactiveOrderService}, payload checked), on the store's non-blocking
 *       face, each call subscribed and awaited;
 *   <li>{@code message} and {@code message-repeat}: one delivery of a message as the Kafka and
 *       RabbitMQ adapters hand it to {@link MessageIdempotency#handle} (its key from the {@value
 *       MessageKey#HEADER} header, the handler counting a business effect), with a key never seen
 *       before, and a repeat of one of 1,024 handled keys. The broker is left out: these are the
 *       library's time per delivery, which a consumer adds to the broker's.
 * </ul>
 *
 * <p>Stores: {@code memory} (Caffeine, bounded), {@code redis} ({@code IDEMPOTENT_REDIS_URL}),
 * {@code postgresql} and {@code mariadb} ({@code IDEMPOTENT_POSTGRES_URL}, {@code
 * IDEMPOTENT_MARIADB_URL}; table {@value #TABLE}, emptied at the start), {@code dynamodb} ({@code
 * IDEMPOTENT_DYNAMODB_URL}, a local endpoint such as dynalite; table {@code bench_latency}) and
 * {@code nats} ({@code IDEMPOTENT_JETSTREAM_URL}; bucket {@code bench-latency}). Each cell is
 * warmed up, then measured; the whole set of cells is repeated {@code --rounds} times and the
 * report gives, per cell, the median of the rounds and the range of p99. Every answer is checked (a
 * fresh call returns its own receipt, a replay the recorded one, a held key is refused); a wrong
 * one stops the run.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.LatencyRun \
 *     [--stores memory,redis,postgresql,mariadb,dynamodb,nats]
 *     [--paths fresh,replay,in-progress,mono-fresh,mono-replay,message,message-repeat]
 *     [--threads 1,16] [--warmup 3] [--measure 5] [--rounds 3] [--out latency-report.md]
 * </pre>
 */
public final class LatencyRun {
  static final String TABLE = "bench_latency_record";
  private static final int HELD_KEYS = 16;
  private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final CountDownLatch OPEN = new CountDownLatch(0);

  private final OrderService service = new OrderService();
  private final ReactiveOrderService reactive = new ReactiveOrderService();
  private final LatencyService holder = new LatencyService();
  private final String[] replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);
  private final MessageIdempotency messages =
      MessageIdempotency.builder("bench.latency.message").build();
  private final LongAdder effects = new LongAdder();

  /** One measured cell of one round. */
  record Cell(
      String store, String path, int threads, long calls, double seconds, Histogram histogram) {
    double micros(double percentile) {
      return histogram.getValueAtPercentile(percentile) / 1000.0;
    }
  }

  /** A store under test and what closes it. */
  private record StoreUnderTest(IdempotencyStore store, AutoCloseable resources) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    List<String> stores = list(options, "stores", "memory,redis,postgresql,mariadb,dynamodb,nats");
    List<String> paths =
        list(
            options,
            "paths",
            "fresh,replay,in-progress,mono-fresh,mono-replay,message,message-repeat");
    List<Integer> threads =
        list(options, "threads", "1,16").stream().map(Integer::parseInt).toList();
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "3"));
    int measure = Integer.parseInt(options.getOrDefault("measure", "5"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    Path out = Path.of(options.getOrDefault("out", "latency-report.md"));

    LatencyRun run = new LatencyRun();
    Instant started = Instant.now();
    Map<String, List<Cell>> byCell = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      for (String store : stores) {
        StoreUnderTest under = open(store);
        try {
          Idempotency.install(IdempotencyConfig.builder().defaultStore(under.store()).build());
          WeavingCheck.requireReplay(
              "OrderService.submit", run.service::submit, "weaving-check-" + System.nanoTime());
          for (String path : paths) {
            for (int n : threads) {
              Cell cell = run.measure(store, path, n, warmup, measure);
              byCell
                  .computeIfAbsent(store + "|" + path + "|" + n, k -> new ArrayList<>())
                  .add(cell);
              System.out.printf(
                  Locale.ROOT,
                  "round %d  %-10s %-12s %2d threads  %,9.0f calls/s  p50 %8.1f  p99 %8.1f"
                      + "  p99.9 %8.1f µs%n",
                  round,
                  store,
                  path,
                  n,
                  cell.calls() / cell.seconds(),
                  cell.micros(50),
                  cell.micros(99),
                  cell.micros(99.9));
            }
          }
        } finally {
          Idempotency.reset();
          under.resources().close();
        }
      }
    }
    String report = report(byCell, rounds, warmup, measure, started);
    System.out.println();
    System.out.println(report);
    Files.writeString(out, report, StandardCharsets.UTF_8);
    System.exit(0);
  }

  /** Warms {@code path} up at {@code threads} threads, then measures it. */
  Cell measure(String store, String path, int threads, int warmupSeconds, int measureSeconds)
      throws Exception {
    Call call = call(path);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService holders = null;
    List<Future<Receipt>> held = new ArrayList<>();
    String[] heldKeys = new String[HELD_KEYS];
    if (path.equals("in-progress")) {
      holders = Executors.newFixedThreadPool(HELD_KEYS);
      CountDownLatch started = new CountDownLatch(HELD_KEYS);
      for (int i = 0; i < HELD_KEYS; i++) {
        String key = "held-" + System.nanoTime() + "-" + i;
        heldKeys[i] = key;
        held.add(holders.submit(() -> holder.hold(key, started, release)));
      }
      if (!started.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the held keys were not all claimed within 30 s");
      }
    }
    if (path.equals("message-repeat")) {
      for (String key : replayKeys) { // handles the keys (again, if a bounded store evicted them)
        deliver(key);
      }
    }
    if (path.endsWith("replay")) {
      for (String key : replayKeys) { // records the keys (again, if a bounded store evicted them)
        if (path.equals("replay")) {
          service.submitRetained(key, AMOUNT);
        } else {
          reactive.submitRetained(key, AMOUNT).block();
        }
      }
    }
    try {
      run(call, heldKeys, threads, warmupSeconds, null);
      Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
      long begin = System.nanoTime();
      long calls = run(call, heldKeys, threads, measureSeconds, histogram);
      double seconds = (System.nanoTime() - begin) / 1e9;
      return new Cell(store, path, threads, calls, seconds, histogram);
    } finally {
      release.countDown();
      if (holders != null) {
        for (Future<Receipt> f : held) {
          f.get(1, TimeUnit.MINUTES);
        }
        holders.shutdown();
      }
    }
  }

  /** One timed call of a path; {@code i} counts the thread's calls. */
  @FunctionalInterface
  private interface Call {
    void call(String prefix, long i, String[] heldKeys) throws Exception;
  }

  private Call call(String path) {
    return switch (path) {
      case "fresh" ->
          (prefix, i, held) -> {
            String key = prefix + i;
            Receipt r = service.submit(key, AMOUNT);
            if (!r.orderId().equals(key)) {
              throw new IllegalStateException("fresh call " + key + " returned " + r);
            }
          };
      case "replay" ->
          (prefix, i, held) -> {
            String key = replayKeys[(int) (i & (REPLAY_KEYS - 1))];
            Receipt r = service.submitRetained(key, AMOUNT + 1);
            if (r.amountCents() != AMOUNT) {
              throw new IllegalStateException("replay of " + key + " ran the body: " + r);
            }
          };
      case "in-progress" ->
          (prefix, i, held) -> {
            String key = held[(int) (i % HELD_KEYS)];
            try {
              holder.hold(key, OPEN, OPEN);
            } catch (IdempotencyInProgressException expected) {
              return;
            }
            throw new IllegalStateException("a repeat of held key " + key + " ran");
          };
      case "mono-fresh" ->
          (prefix, i, held) -> {
            String key = prefix + i;
            Receipt r = reactive.submit(key, AMOUNT).block();
            if (r == null || !r.orderId().equals(key)) {
              throw new IllegalStateException("fresh Mono call " + key + " returned " + r);
            }
          };
      case "mono-replay" ->
          (prefix, i, held) -> {
            String key = replayKeys[(int) (i & (REPLAY_KEYS - 1))];
            Receipt r = reactive.submitRetained(key, AMOUNT).block();
            if (r == null || !r.orderId().equals(key)) {
              throw new IllegalStateException("Mono replay of " + key + " returned " + r);
            }
          };
      case "message" ->
          (prefix, i, held) -> {
            String key = prefix + i;
            MessageOutcome outcome = deliver(key);
            if (outcome != MessageOutcome.PROCESSED) {
              throw new IllegalStateException("first delivery of " + key + " was " + outcome);
            }
          };
      case "message-repeat" ->
          (prefix, i, held) -> {
            String key = replayKeys[(int) (i & (REPLAY_KEYS - 1))];
            MessageOutcome outcome = deliver(key); // REPLAYED: the handler did not run
            if (outcome != MessageOutcome.REPLAYED) {
              throw new IllegalStateException("repeat of " + key + " was " + outcome);
            }
          };
      default ->
          throw new IllegalArgumentException(
              "unknown path '"
                  + path
                  + "': use fresh, replay, in-progress, mono-fresh, mono-replay, message or"
                  + " message-repeat");
    };
  }

  /** One delivery of the message whose header carries {@code key}. */
  private MessageOutcome deliver(String key) throws Exception {
    return messages.handle(MessageKey.fromHeader(key, messages.scope()), effects::increment);
  }

  /** Runs {@code threads} closed loops for {@code seconds}; returns the number of calls. */
  private static long run(Call call, String[] held, int threads, int seconds, Histogram into)
      throws Exception {
    CyclicBarrier start = new CyclicBarrier(threads);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[] counts = new long[threads];
    Histogram[] histograms = new Histogram[threads];
    Thread[] workers = new Thread[threads];
    String run = Long.toString(System.nanoTime(), 36);
    for (int t = 0; t < threads; t++) {
      int index = t;
      histograms[t] = new Histogram(HIGHEST_NANOS, 3);
      String prefix = "lat-" + run + "-" + t + "-";
      workers[t] =
          new Thread(
              () -> {
                try {
                  start.await();
                  long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                  long i = 0;
                  long now = System.nanoTime();
                  while (now < end && failure.get() == null) {
                    call.call(prefix, i++, held);
                    long after = System.nanoTime();
                    histograms[index].recordValue(Math.min(after - now, HIGHEST_NANOS));
                    now = after;
                  }
                  counts[index] = i;
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "latency-" + t);
      workers[t].start();
    }
    for (Thread w : workers) {
      w.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a call failed: " + failure.get(), failure.get());
    }
    long calls = 0;
    for (int t = 0; t < threads; t++) {
      calls += counts[t];
      if (into != null) {
        into.add(histograms[t]);
      }
    }
    return calls;
  }

  private static StoreUnderTest open(String name) throws SQLException {
    switch (name) {
      case "memory" -> {
        CaffeineIdempotencyStore store =
            CaffeineIdempotencyStore.builder().maximumSize(200_000).build();
        return new StoreUnderTest(store, store::close);
      }
      case "redis" -> {
        Config config = new Config();
        config.useSingleServer().setAddress(BenchmarkSettings.address(REDIS_URL_VARIABLE));
        RedissonClient redisson;
        try {
          redisson = Redisson.create(config);
        } catch (RuntimeException e) {
          throw new IllegalStateException(
              "cannot reach Redis; set " + REDIS_URL_VARIABLE + ": " + e, e);
        }
        RedissonIdempotencyStore store =
            RedissonIdempotencyStore.builder(redisson).keyPrefix("bench:latency:").build();
        return new StoreUnderTest(
            store,
            () -> {
              store.close();
              redisson.shutdown();
            });
      }
      case "postgresql", "mariadb" -> {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(BenchmarkSettings.jdbcUrl(name));
        hikari.setMaximumPoolSize(16);
        hikari.setPoolName("latency-" + name);
        HikariDataSource pool;
        try {
          pool = new HikariDataSource(hikari);
        } catch (RuntimeException e) {
          throw new IllegalStateException(
              "cannot reach " + name + "; set " + BenchmarkSettings.jdbcVariable(name) + ": " + e,
              e);
        }
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(pool).table(TABLE).createTable(true).build();
        try (Connection c = pool.getConnection();
            Statement st = c.createStatement()) {
          st.executeUpdate("TRUNCATE TABLE " + TABLE);
        }
        return new StoreUnderTest(
            store,
            () -> {
              store.close();
              pool.close();
            });
      }
      case "dynamodb" -> {
        DynamoDbIdempotencyStore store =
            DynamoDbIdempotencyStore.builder()
                .endpoint(URI.create(BenchmarkSettings.address(DYNAMODB_URL_VARIABLE)))
                .region(Region.US_EAST_1)
                .credentials(
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .table("bench_latency")
                .createTable(true)
                .build();
        return new StoreUnderTest(store, store::close);
      }
      case "nats" -> {
        String url = BenchmarkSettings.address(NATS_URL_VARIABLE);
        io.nats.client.Connection connection;
        try {
          connection =
              Nats.connect(
                  new Options.Builder()
                      .server(url)
                      .connectionTimeout(Duration.ofSeconds(5))
                      .build());
        } catch (java.io.IOException | InterruptedException e) {
          throw new IllegalStateException(
              "cannot reach NATS; set " + NATS_URL_VARIABLE + ": " + e, e);
        }
        NatsIdempotencyStore store =
            NatsIdempotencyStore.builder(connection).bucket("bench-latency").build();
        return new StoreUnderTest(
            store,
            () -> {
              store.close();
              connection.close();
            });
      }
      default ->
          throw new IllegalArgumentException(
              "unknown store '"
                  + name
                  + "': use memory, redis, postgresql, mariadb, dynamodb or nats");
    }
  }

  static String report(
      Map<String, List<Cell>> byCell, int rounds, int warmup, int measure, Instant started) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "LatencyRun, %s, Java %s, %d cores; %d round(s), %d s warm-up + %d s measured per"
                + " cell; medians of the rounds, p99 range in brackets (µs)%n%n",
            started,
            System.getProperty("java.version"),
            Runtime.getRuntime().availableProcessors(),
            rounds,
            warmup,
            measure));
    out.append("| store | path | threads | calls/s | p50 | p99 | p99.9 |\n");
    out.append("|---|---|--:|--:|--:|--:|--:|\n");
    for (List<Cell> cells : byCell.values()) {
      Cell first = cells.get(0);
      double[] p99 = cells.stream().mapToDouble(c -> c.micros(99)).sorted().toArray();
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %,.0f | %.0f | %.0f (%.0f–%.0f) | %.0f |%n",
              first.store(),
              first.path(),
              first.threads(),
              median(cells.stream().mapToDouble(c -> c.calls() / c.seconds()).toArray()),
              median(cells.stream().mapToDouble(c -> c.micros(50)).toArray()),
              median(p99),
              p99[0],
              p99[p99.length - 1],
              median(cells.stream().mapToDouble(c -> c.micros(99.9)).toArray())));
    }
    return out.toString();
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "expected --name value pairs (--stores, --paths, --threads, --warmup, --measure,"
                + " --rounds, --out), got '"
                + args[i]
                + "'");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }

  private static List<String> list(Map<String, String> options, String name, String fallback) {
    return Arrays.stream(options.getOrDefault(name, fallback).split(","))
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }
}
