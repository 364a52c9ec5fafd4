package dev.idempotent.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every benchmark next to its hand-written baseline in one JMH session and prints (and writes
 * to {@code benchmark-report.md} next to the jar) a Markdown table of throughputs, ratios and the
 * targets. Measures and reports; never asserts.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar [--quick] [--only REGEX] [--gc] [--verbose] [--forks N]
 *     [--warmup N]
 *   --quick      1 fork, 2 x 1 s warm-up and 3 x 1 s measurement per in-memory benchmark, 3 x 2 s and
 *                3 x 2 s per Redis or JDBC one (about five minutes in all); otherwise 5 x 2 s warm-up and
 *                5 x 3 s measurement, 2 forks in memory and 4 forks per side on a server (about 50 minutes)
 *   --warmup N   N warm-up iterations per fork (instead of the mode's 2, 3 or 5); at 16 threads on 2 cores
 *                a server row's throughput still climbs for 15-20 s, so its full-mode rows want 10
 *   --forks N    N forks per side, alternating, for each Redis or JDBC row (instead of 1 quick, 4 full):
 *                N pairs of forks that ran next to each other; such a row reports each side's median
 *                fork, the ratio of the medians and the lowest and highest ratio of a pair
 *   --only REGEX runs the comparisons whose title matches, e.g. --only memory, --only 'Redis|PostgreSQL'
 *   --gc         adds JMH's GC profiler and a bytes-allocated-per-call column
 *   --verbose    shows JMH's own output
 * java -jar benchmarks/target/benchmarks.jar --messaging [MessagingCostRun's options]
 *   --messaging  runs the consumer throughput benchmark on RabbitMQ and Kafka instead ({@link
 *                MessagingCostRun}; its options follow, e.g. --messaging --long)
 * </pre>
 *
 * Comparisons that need Redis, PostgreSQL, MariaDB or DynamoDB are skipped, with a note, when the
 * service does not answer at {@code IDEMPOTENT_REDIS_URL}, {@code IDEMPOTENT_POSTGRES_URL}, {@code
 * IDEMPOTENT_MARIADB_URL}, {@code IDEMPOTENT_DYNAMODB_URL} (or their local defaults). Plain JMH
 * works too: {@code java -cp benchmarks.jar org.openjdk.jmh.Main MemoryStore -t 2}.
 */
public final class BenchmarkReport {
  /** What a comparison is held to. */
  enum Goal {
    /** Baseline throughput / our throughput at most 2. */
    COST_AT_MOST_2X("cost ≤ 2.00x"),
    /** Baseline throughput / our throughput at most 1.3. */
    COST_AT_MOST_1_3X("cost ≤ 1.30x"),
    /** Our throughput / baseline throughput at least 0.9. */
    THROUGHPUT_AT_LEAST_90_PERCENT("throughput ≥ 0.90x"),
    /** Our throughput / baseline throughput at least 0.95. */
    THROUGHPUT_AT_LEAST_95_PERCENT("throughput ≥ 0.95x"),
    /** Our throughput / baseline throughput at least 10. */
    THROUGHPUT_AT_LEAST_10X("throughput ≥ 10x"),
    /** No target: a throughput ratio that splits another row's gap. */
    MEASURED("none (measured)");

    final String text;

    Goal(String text) {
      this.text = text;
    }
  }

  /** A backend a comparison needs. */
  enum Service {
    NONE(null),
    REDIS(BenchmarkSettings.REDIS_URL_VARIABLE),
    POSTGRESQL(BenchmarkSettings.POSTGRES_URL_VARIABLE),
    MARIADB(BenchmarkSettings.MARIADB_URL_VARIABLE),
    DYNAMODB(BenchmarkSettings.DYNAMODB_URL_VARIABLE),
    NATS(BenchmarkSettings.NATS_URL_VARIABLE);

    final String variable;

    Service(String variable) {
      this.variable = variable;
    }
  }

  /** One of our benchmarks against its baseline, at several thread counts. */
  record Comparison(
      String target,
      String title,
      Class<?> benchmarks,
      String ours,
      String baseline,
      Goal goal,
      Service service,
      String database,
      int... threads) {}

  /**
   * One measured row; {@code pairs} holds the throughput of each fork where the forks of the two
   * sides alternate (a server's rows), else {@code null}.
   */
  record Row(
      Comparison comparison,
      int threads,
      RunResult ours,
      RunResult baseline,
      String forks,
      ForkPairs pairs,
      String error) {}

  /**
   * The throughput of each fork of an alternating row, each side in the order run: the k-th fork of
   * ours and the k-th of the baseline ran next to each other (baseline, ours, ours, baseline, ...).
   */
  record ForkPairs(List<Double> ours, List<Double> baseline) {
    double oursMedian() {
      return median(ours);
    }

    double baselineMedian() {
      return median(baseline);
    }

    /** Ours / baseline of each pair of forks that ran next to each other, in the order run. */
    List<Double> pairRatios() {
      List<Double> ratios = new ArrayList<>();
      for (int k = 0; k < Math.min(ours.size(), baseline.size()); k++) {
        ratios.add(ours.get(k) / baseline.get(k));
      }
      return ratios;
    }

    private static double median(List<Double> values) {
      List<Double> sorted = new ArrayList<>(values);
      Collections.sort(sorted);
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
  }

  static final List<Comparison> COMPARISONS =
      List.of(
          new Comparison(
              "1",
              "fresh key, memory store",
              MemoryStoreBenchmarks.class,
              "freshKeyWoven",
              "freshKeyBaseline",
              Goal.COST_AT_MOST_1_3X,
              Service.NONE,
              null,
              1,
              2),
          new Comparison(
              "2",
              "replay, memory store",
              MemoryStoreBenchmarks.class,
              "replayWoven",
              "replayBaseline",
              Goal.COST_AT_MOST_2X,
              Service.NONE,
              null,
              1,
              2),
          new Comparison(
              "3",
              "key expression",
              KeyExpressionBenchmarks.class,
              "compiledExpression",
              "handWritten",
              Goal.COST_AT_MOST_2X,
              Service.NONE,
              null,
              1,
              2),
          new Comparison(
              "4",
              "fresh key, Redis",
              RedisStoreBenchmarks.class,
              "freshKeyWoven",
              "freshKeyFloor",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "fresh key, Redis: the floor with the woven call's client work",
              RedisStoreBenchmarks.class,
              "freshKeyFloorWithClientWork",
              "freshKeyFloor",
              Goal.MEASURED,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "replay, Redis",
              RedisStoreBenchmarks.class,
              "replayWoven",
              "replayFloor",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "replay, Redis: the floor with the woven call's client work",
              RedisStoreBenchmarks.class,
              "replayFloorWithClientWork",
              "replayFloor",
              Goal.MEASURED,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "replay, Redis: the floor's plain GET",
              RedisStoreBenchmarks.class,
              "replayFloorGet",
              "replayFloor",
              Goal.MEASURED,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "fresh key, NATS",
              NatsStoreBenchmarks.class,
              "freshKeyWoven",
              "freshKeyFloor",
              Goal.MEASURED,
              Service.NATS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "replay, NATS",
              NatsStoreBenchmarks.class,
              "replayWoven",
              "replayFloor",
              Goal.MEASURED,
              Service.NATS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "reactive fresh key, Redis",
              RedisReactiveBenchmarks.class,
              "freshKeyMono",
              "freshKeyAsyncFloor",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "4",
              "reactive replay, Redis",
              RedisReactiveBenchmarks.class,
              "replayMono",
              "replayAsyncFloor",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "5",
              "fresh key, PostgreSQL",
              JdbcStoreBenchmarks.class,
              "freshKeyWoven",
              "freshKeyBaseline",
              Goal.THROUGHPUT_AT_LEAST_95_PERCENT,
              Service.POSTGRESQL,
              "postgresql",
              1,
              16),
          new Comparison(
              "5",
              "replay, PostgreSQL",
              JdbcStoreBenchmarks.class,
              "replayWoven",
              "replayBaseline",
              Goal.THROUGHPUT_AT_LEAST_95_PERCENT,
              Service.POSTGRESQL,
              "postgresql",
              1,
              16),
          new Comparison(
              "5",
              "replay after a claim, PostgreSQL",
              JdbcStoreBenchmarks.class,
              "replayWoven",
              "replayAfterClaimBaseline",
              Goal.MEASURED,
              Service.POSTGRESQL,
              "postgresql",
              1,
              16),
          new Comparison(
              "5",
              "fresh key, MariaDB",
              JdbcStoreBenchmarks.class,
              "freshKeyWoven",
              "freshKeyBaseline",
              Goal.THROUGHPUT_AT_LEAST_95_PERCENT,
              Service.MARIADB,
              "mariadb",
              1,
              16),
          new Comparison(
              "5",
              "replay, MariaDB",
              JdbcStoreBenchmarks.class,
              "replayWoven",
              "replayBaseline",
              Goal.THROUGHPUT_AT_LEAST_95_PERCENT,
              Service.MARIADB,
              "mariadb",
              1,
              16),
          new Comparison(
              "5",
              "replay after a claim, MariaDB",
              JdbcStoreBenchmarks.class,
              "replayWoven",
              "replayAfterClaimBaseline",
              Goal.MEASURED,
              Service.MARIADB,
              "mariadb",
              1,
              16),
          new Comparison(
              "6",
              "replay, Redis, near cache",
              RedisNearCacheBenchmarks.class,
              "replayNearCache",
              "replayFloor",
              Goal.THROUGHPUT_AT_LEAST_10X,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "6",
              "fresh key, Redis, near cache",
              RedisNearCacheBenchmarks.class,
              "freshKeyNearCache",
              "freshKeyFloor",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              null,
              1,
              16),
          new Comparison(
              "7",
              "web filter POST, fresh key, memory store",
              WebFilterBenchmarks.class,
              "freshFilter",
              "freshBaseline",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.NONE,
              "store=memory",
              1,
              2),
          new Comparison(
              "7",
              "web filter POST, replay, memory store",
              WebFilterBenchmarks.class,
              "replayFilter",
              "replayBaseline",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.NONE,
              "store=memory",
              1,
              2),
          new Comparison(
              "7",
              "web filter POST, fresh key, Redis",
              WebFilterBenchmarks.class,
              "freshFilter",
              "freshBaseline",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              "store=redis",
              1,
              16),
          new Comparison(
              "4",
              "fresh key, DynamoDB",
              DynamoDbStoreBenchmarks.class,
              "freshKeyWoven",
              "freshKeyFloor",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.DYNAMODB,
              null,
              1,
              16),
          new Comparison(
              "4",
              "replay, DynamoDB (ours: a refused conditional put, then a read where the refusal"
                  + " carries no item, as on dynalite)",
              DynamoDbStoreBenchmarks.class,
              "replayWoven",
              "replayFloor",
              Goal.MEASURED,
              Service.DYNAMODB,
              null,
              1,
              16),
          new Comparison(
              "7",
              "web filter POST, replay, Redis",
              WebFilterBenchmarks.class,
              "replayFilter",
              "replayBaseline",
              Goal.THROUGHPUT_AT_LEAST_90_PERCENT,
              Service.REDIS,
              "store=redis",
              1,
              16));

  private final boolean quick;
  private final boolean gc;
  private final boolean verbose;

  /** Forks per side of a server row; 0 for the mode's default (1 quick, 4 full). */
  private final int forks;

  /** Warm-up iterations per fork; 0 for the mode's default. */
  private final int warmups;

  private BenchmarkReport(boolean quick, boolean gc, boolean verbose, int forks, int warmups) {
    this.quick = quick;
    this.forks = forks;
    this.warmups = warmups;
    this.gc = gc;
    this.verbose = verbose;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--messaging")) {
      MessagingCostRun.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    boolean quick = false;
    boolean gc = false;
    boolean verbose = false;
    Pattern only = null;
    int forks = 0;
    int warmups = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--gc" -> gc = true;
        case "--verbose" -> verbose = true;
        case "--only" -> {
          if (i + 1 >= args.length) {
            usage("--only needs a regular expression, e.g. --only memory");
          }
          only = Pattern.compile(args[++i], Pattern.CASE_INSENSITIVE);
        }
        case "--forks" -> {
          if (i + 1 >= args.length || !args[i + 1].matches("[1-9][0-9]?")) {
            usage(
                "--forks needs the number of forks per side of a server row, 1 to 99, e.g. --forks"
                    + " 3");
          }
          forks = Integer.parseInt(args[++i]);
        }
        case "--warmup" -> {
          if (i + 1 >= args.length || !args[i + 1].matches("[1-9][0-9]?")) {
            usage(
                "--warmup needs the number of warm-up iterations per fork, 1 to 99, e.g. --warmup"
                    + " 10");
          }
          warmups = Integer.parseInt(args[++i]);
        }
        case "-h", "--help" -> {
          usage(null);
        }
        default -> usage("unknown argument '" + args[i] + "'");
      }
    }
    new BenchmarkReport(quick, gc, verbose, forks, warmups).run(only);
  }

  private static void usage(String problem) {
    if (problem != null) {
      System.err.println(problem);
    }
    System.err.println(
        "usage: java -jar benchmarks.jar [--quick] [--only REGEX] [--gc] [--verbose] [--forks N]"
            + " [--warmup N]\n"
            + "       java -jar benchmarks.jar --messaging [--long] [--messages N] [--duplicates"
            + " SHARE] [--rounds N] [--consumers N] [--warmup N] [--brokers rabbitmq,kafka]");
    System.exit(problem == null ? 0 : 2);
  }

  private void run(Pattern only) throws IOException {
    Instant started = Instant.now();
    List<String> notes = new ArrayList<>();
    Map<Service, Boolean> available = new LinkedHashMap<>();
    List<Row> rows = new ArrayList<>();
    for (Comparison c : COMPARISONS) {
      String name = c.target() + ". " + c.title();
      if (only != null && !only.matcher(name).find()) {
        continue;
      }
      boolean up = available.computeIfAbsent(c.service(), s -> answers(s, notes));
      if (!up) {
        notes.add("skipped: " + name + " (" + c.service().variable + " does not answer)");
        continue;
      }
      for (int threads : c.threads()) {
        System.out.printf(Locale.ROOT, "running %-26s %2d thread(s) ...%n", name, threads);
        Row row = measure(c, threads);
        rows.add(row);
        System.out.println("  " + summary(row));
        if (row.forks() != null) {
          System.out.println("  forks in the order run: " + row.forks());
          notes.add(
              String.format(
                  Locale.ROOT,
                  "%s, %d thread(s), forks in the order run (ops/s): %s",
                  name,
                  threads,
                  row.forks()));
          String pairs = pairRatios(row);
          if (pairs != null) {
            System.out.println("  " + pairs);
            notes.add(String.format(Locale.ROOT, "%s, %d thread(s), %s", name, threads, pairs));
          }
        }
      }
    }
    String report = render(rows, notes, started);
    System.out.println();
    System.out.println(report);
    Path file = reportFile();
    Files.createDirectories(file.getParent());
    Files.writeString(file, report, StandardCharsets.UTF_8);
    System.out.println("written to " + file);
  }

  private Row measure(Comparison c, int threads) {
    try {
      if (c.service() == Service.NONE) {
        Collection<RunResult> results =
            new Runner(options(c, threads, c.ours() + "|" + c.baseline(), quick ? 1 : 2).build())
                .run();
        return new Row(
            c, threads, find(results, c.ours()), find(results, c.baseline()), null, null, null);
      }
      return measureInterleaved(c, threads);
    } catch (RunnerException | IllegalStateException e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      return new Row(c, threads, null, null, null, null, "failed: " + root);
    }
  }

  /**
   * A server's speed drifts over minutes (disk flushes, background cleanup, other tenants of the
   * machine), and JMH runs all forks of one benchmark before the next. For a server, forks of ours
   * and of the baseline therefore alternate, one JVM each, in the order baseline, ours, ours,
   * baseline, baseline, ours, ...: a drift hits both sides alike. The forks of each side are then
   * pooled into one result, as JMH would have, and kept one by one for their medians and the ratios
   * of the pairs that ran next to each other.
   */
  private Row measureInterleaved(Comparison c, int threads) throws RunnerException {
    int forksPerSide = forks > 0 ? forks : quick ? 1 : 4;
    StringBuilder order = new StringBuilder();
    List<BenchmarkResult> ours = new ArrayList<>();
    List<BenchmarkResult> baseline = new ArrayList<>();
    BenchmarkParams oursParams = null;
    BenchmarkParams baselineParams = null;
    List<Double> oursForks = new ArrayList<>();
    List<Double> baselineForks = new ArrayList<>();
    for (int fork = 0; fork < 2 * forksPerSide; fork++) {
      boolean oursNext = fork % 4 == 1 || fork % 4 == 2;
      String method = oursNext ? c.ours() : c.baseline();
      RunResult result = find(new Runner(options(c, threads, method, 1).build()).run(), method);
      order
          .append(order.length() == 0 ? "" : ", ")
          .append(oursNext ? "ours " : "baseline ")
          .append(ops(result));
      double score = result.getPrimaryResult().getScore();
      if (oursNext) {
        oursParams = result.getParams();
        ours.addAll(result.getBenchmarkResults());
        oursForks.add(result.getPrimaryResult().getScore());
      } else {
        baselineParams = result.getParams();
        baseline.addAll(result.getBenchmarkResults());
        baselineForks.add(result.getPrimaryResult().getScore());
      }
    }
    return new Row(
        c,
        threads,
        new RunResult(oursParams, ours),
        new RunResult(baselineParams, baseline),
        order.toString(),
        new ForkPairs(oursForks, baselineForks),
        null);
  }

  private ChainedOptionsBuilder options(Comparison c, int threads, String methods, int forks) {
    // Round trips to a server warm up more slowly (driver, server caches, JIT of the network
    // stack).
    boolean remote = c.service() != Service.NONE;
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include("^" + Pattern.quote(c.benchmarks().getName()) + "\\.(" + methods + ")$")
            .threads(threads)
            .forks(forks)
            .warmupIterations(warmups > 0 ? warmups : quick ? (remote ? 3 : 2) : 5)
            .warmupTime(TimeValue.seconds(quick ? (remote ? 2 : 1) : 2))
            .measurementIterations(quick ? 3 : 5)
            .measurementTime(TimeValue.seconds(quick ? (remote ? 2 : 1) : 3))
            .timeUnit(TimeUnit.SECONDS)
            .shouldFailOnError(true)
            .verbosity(verbose ? VerboseMode.NORMAL : VerboseMode.SILENT);
    if (c.database() != null) {
      // "name=value" sets another @Param than the JDBC benchmarks' database (the web benchmarks'
      // store)
      int eq = c.database().indexOf('=');
      options.param(
          eq < 0 ? "database" : c.database().substring(0, eq), c.database().substring(eq + 1));
    }
    if (gc) {
      options.addProfiler(GCProfiler.class);
    }
    return options;
  }

  private static RunResult find(Collection<RunResult> results, String method) {
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      if (name.substring(name.lastIndexOf('.') + 1).equals(method)) {
        return r;
      }
    }
    throw new IllegalStateException("JMH returned no result for " + method);
  }

  // ---- service probes
  // --------------------------------------------------------------------------------------

  private static boolean answers(Service service, List<String> notes) {
    return switch (service) {
      case NONE -> true;
      case REDIS -> redisAnswers(BenchmarkSettings.address(service.variable), notes);
      case POSTGRESQL, MARIADB ->
          databaseAnswers(BenchmarkSettings.address(service.variable), notes);
      case DYNAMODB -> portAnswers(BenchmarkSettings.address(service.variable), notes);
      case NATS -> natsAnswers(BenchmarkSettings.address(service.variable), notes);
    };
  }

  /** Whether a NATS server greets on the URL's address ({@code INFO}, its first line). */
  private static boolean natsAnswers(String url, List<String> notes) {
    try {
      URI uri = URI.create(url.split(",")[0].trim());
      int port = uri.getPort() < 0 ? 4222 : uri.getPort();
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(uri.getHost(), port), 2000);
        socket.setSoTimeout(2000);
        byte[] greeting = socket.getInputStream().readNBytes(4);
        return "INFO".equals(new String(greeting, StandardCharsets.US_ASCII));
      }
    } catch (IOException | IllegalArgumentException e) {
      notes.add("NATS at " + url + " does not answer: " + e.getMessage());
      return false;
    }
  }

  private static boolean redisAnswers(String url, List<String> notes) {
    try {
      URI uri = URI.create(url);
      int port = uri.getPort() < 0 ? 6379 : uri.getPort();
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(uri.getHost(), port), 2000);
        socket.setSoTimeout(2000);
        if ("rediss".equals(uri.getScheme())) {
          return true; // TLS: an open port is all a plain probe can tell
        }
        OutputStream out = socket.getOutputStream();
        out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        int first = in.read();
        return first == '+' || first == '-'; // PONG, or NOAUTH: a Redis answered
      }
    } catch (IOException | IllegalArgumentException e) {
      notes.add("Redis at " + redactedUrl(url) + " did not answer: " + e.getMessage());
      return false;
    }
  }

  /** Whether something accepts a connection at the host and port of {@code url}. */
  private static boolean portAnswers(String url, List<String> notes) {
    try (Socket socket = new Socket()) {
      URI uri = URI.create(url);
      socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2000);
      return true;
    } catch (IOException | IllegalArgumentException e) {
      notes.add(redactedUrl(url) + " did not answer: " + e.getMessage());
      return false;
    }
  }

  private static boolean databaseAnswers(String url, List<String> notes) {
    DriverManager.setLoginTimeout(3);
    try (Connection c = DriverManager.getConnection(url)) {
      return c.isValid(3);
    } catch (SQLException e) {
      notes.add(
          redactedUrl(url)
              + " did not answer: "
              + e.getMessage().replaceAll("(?i)password=[^&;\\s]*", "password=***"));
      return false;
    }
  }

  private static String redactedUrl(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***")
        .replaceAll("//([^/@:]*):[^/@]*@", "//$1:***@");
  }

  // ---- the table
  // -------------------------------------------------------------------------------------------

  private String summary(Row row) {
    if (row.error() != null) {
      return row.error();
    }
    return String.format(
        Locale.ROOT,
        "ours %s ops/s, baseline %s ops/s: %s %s%s",
        sideText(row, true),
        sideText(row, false),
        ratioText(row),
        verdict(row),
        row.pairs() == null ? "" : "; pairs " + pairsText(row));
  }

  private String render(List<Row> rows, List<String> notes, Instant started) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Benchmark report\n\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "%s mode, %s, Java %s (%s), %d cores, %s; started %s, took %d s.%n%n",
            quick ? "Quick" : "Full",
            (quick
                    ? "1 fork, 2 x 1 s warm-up and 3 x 1 s measurement in memory, 3 x 2 s and 3 x 2"
                        + " s on a server"
                    : "5 x 2 s warm-up, 5 x 3 s measurement, 2 forks in memory and 4 forks per side"
                        + " on a server")
                + (forks > 0 ? "; " + forks + " forks per side on a server" : "")
                + (warmups > 0 ? "; " + warmups + " warm-up iterations per fork" : ""),
            System.getProperty("java.version"),
            System.getProperty("java.vm.name"),
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("os.name"),
            started.truncatedTo(ChronoUnit.SECONDS),
            Instant.now().getEpochSecond() - started.getEpochSecond()));
    sb.append(
        "Throughput in operations per second (± the 99.9% error where JMH gives one). Cost ratio ="
            + " baseline throughput / ours; throughput ratio = ours / baseline. Measured, never"
            + " asserted: on a busy machine the numbers move between runs. On a server, forks of"
            + " ours and of the baseline alternate (baseline, ours, ours, baseline, ...), so that a"
            + " drift of the server's speed hits both sides alike; there each side is the median of"
            + " its forks, the ratio is the ratio of the medians (the verdict's), and pairs gives"
            + " the lowest and highest ratio of two forks that ran next to each other.\n\n");
    sb.append(
        "| # | Benchmark | Threads | Ours (ops/s) | Baseline (ops/s) | Ratio | Pairs | Target |"
            + " Result |");
    sb.append(gc ? " Ours B/op | Baseline B/op |\n" : "\n");
    sb.append(
        "|---|-----------|--------:|-------------:|-----------------:|------:|------:|--------|"
            + "--------|");
    sb.append(gc ? "----------:|--------------:|\n" : "\n");
    for (Row row : rows) {
      Comparison c = row.comparison();
      sb.append("| ")
          .append(c.target())
          .append(" | ")
          .append(c.title())
          .append(" | ")
          .append(row.threads())
          .append(" | ");
      if (row.error() != null) {
        sb.append(row.error().replace('|', '/'))
            .append(" | | | | ")
            .append(c.goal().text)
            .append(" | ERROR |");
        sb.append(gc ? " | |\n" : "\n");
        continue;
      }
      sb.append(sideText(row, true))
          .append(" | ")
          .append(sideText(row, false))
          .append(" | ")
          .append(ratioText(row))
          .append(" | ")
          .append(pairsText(row))
          .append(" | ")
          .append(c.goal().text)
          .append(" | ")
          .append(verdict(row))
          .append(" |");
      if (gc) {
        sb.append(' ')
            .append(allocated(row.ours()))
            .append(" | ")
            .append(allocated(row.baseline()))
            .append(" |");
      }
      sb.append('\n');
    }
    if (!notes.isEmpty()) {
      sb.append('\n');
      for (String note : notes) {
        sb.append("- ").append(note).append('\n');
      }
    }
    return sb.toString();
  }

  /** The row's ratio: of the medians where the forks alternate, else of the pooled scores. */
  private static double ratio(Row row) {
    double ours =
        row.pairs() != null ? row.pairs().oursMedian() : row.ours().getPrimaryResult().getScore();
    double baseline =
        row.pairs() != null
            ? row.pairs().baselineMedian()
            : row.baseline().getPrimaryResult().getScore();
    return isCost(row) ? baseline / ours : ours / baseline;
  }

  /** A side's throughput: the median of its forks where they alternate, else JMH's score. */
  private static String sideText(Row row, boolean ours) {
    if (row.pairs() == null) {
      return opsWithError(ours ? row.ours() : row.baseline());
    }
    List<Double> forks = ours ? row.pairs().ours() : row.pairs().baseline();
    double median = ours ? row.pairs().oursMedian() : row.pairs().baselineMedian();
    return String.format(Locale.ROOT, "%,.0f (median of %d)", median, forks.size());
  }

  /** The lowest and highest ratio of two forks that ran next to each other, where they did. */
  /** Each pair's ratio in the order run, for the notes; {@code null} with fewer than two pairs. */
  private static String pairRatios(Row row) {
    if (row.pairs() == null || row.pairs().pairRatios().size() < 2) {
      return null;
    }
    List<Double> ratios = row.pairs().pairRatios();
    if (isCost(row)) {
      ratios = ratios.stream().map(r -> 1 / r).toList();
    }
    StringBuilder sb = new StringBuilder("ratio of each pair of forks, in the order run:");
    for (double r : ratios) {
      sb.append(String.format(Locale.ROOT, " %.2fx", r));
    }
    return sb.toString();
  }

  private static String pairsText(Row row) {
    if (row.pairs() == null) {
      return "";
    }
    List<Double> ratios = row.pairs().pairRatios();
    if (isCost(row)) {
      ratios = ratios.stream().map(r -> 1 / r).toList();
    }
    return String.format(
        Locale.ROOT,
        "%.2f–%.2f (%d)",
        Collections.min(ratios),
        Collections.max(ratios),
        ratios.size());
  }

  private static String ratioText(Row row) {
    return String.format(Locale.ROOT, "%s %.2fx", isCost(row) ? "cost" : "throughput", ratio(row));
  }

  private static boolean isCost(Row row) {
    return row.comparison().goal() == Goal.COST_AT_MOST_2X
        || row.comparison().goal() == Goal.COST_AT_MOST_1_3X;
  }

  private static String verdict(Row row) {
    double r = ratio(row);
    boolean pass =
        switch (row.comparison().goal()) {
          case COST_AT_MOST_2X -> r <= 2.0;
          case COST_AT_MOST_1_3X -> r <= 1.3;
          case THROUGHPUT_AT_LEAST_90_PERCENT -> r >= 0.9;
          case THROUGHPUT_AT_LEAST_95_PERCENT -> r >= 0.95;
          case THROUGHPUT_AT_LEAST_10X -> r >= 10.0;
          case MEASURED -> true;
        };
    if (row.comparison().goal() == Goal.MEASURED) {
      return "—";
    }
    return pass ? "PASS" : "MISS";
  }

  private static String ops(RunResult r) {
    return String.format(Locale.ROOT, "%,.0f", r.getPrimaryResult().getScore());
  }

  private static String opsWithError(RunResult r) {
    Result<?> primary = r.getPrimaryResult();
    double error = primary.getScoreError();
    if (Double.isNaN(error) || primary.getScore() == 0) {
      return ops(r);
    }
    return String.format(
        Locale.ROOT, "%,.0f ± %.0f%%", primary.getScore(), 100 * error / primary.getScore());
  }

  private static String allocated(RunResult r) {
    Map<String, Result> secondary = r.getSecondaryResults();
    Result<?> norm = secondary.get("gc.alloc.rate.norm");
    if (norm == null) {
      norm = secondary.get("·gc.alloc.rate.norm");
    }
    return norm == null ? "n/a" : String.format(Locale.ROOT, "%,.0f", norm.getScore());
  }

  private static Path reportFile() {
    try {
      Path location =
          Path.of(
              BenchmarkReport.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path dir = Files.isRegularFile(location) ? location.getParent() : location.getParent();
      return dir.resolve("benchmark-report.md");
    } catch (Exception e) {
      return Path.of("benchmark-report.md");
    }
  }
}
