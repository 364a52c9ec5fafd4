package dev.idempotent.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether the JDBC store's cost stays flat as its table grows, on one database:
 *
 * <ol>
 *   <li>fresh-key throughput (claim, then complete, of a new key: one idempotent call) through the
 *       store on {@code threads} threads, on an empty table (after a warm-up of the same length,
 *       whose rows are truncated);
 *   <li>the same after {@code live} completed records, live for a day, are loaded into the table
 *       (in chunks of a million, each sorted by key, spread over the whole key space) and
 *       statistics refreshed;
 *   <li>with a backlog of {@code backlog} expired records, their keys among the live ones, and
 *       1,000 new records a second arriving through the store (with a 20 s retention, so that they
 *       keep expiring too), the latency of those arriving calls and the saturated fresh-key
 *       throughput, each phase with a purge against the mean of the phases without: after one phase
 *       without a purge that is not counted, {@code rounds} times a phase without a purge and one
 *       with the purge paced to twice the arrival rate ({@code purgeBatch}); then one phase with
 *       the purge unpaced ({@code purgeExpired(1000)} back to back), which removes the backlog;
 *       then {@code rounds} times a phase without a purge and one with the store's own scheduled
 *       purge ({@code purgeEvery(1 s, 1000)}, on a second store object on the same table, built for
 *       the phase). Phases alternate so that what one leaves behind, such as a checkpoint or an
 *       autovacuum after its saturated half, falls on both kinds. The purge's rate is the rows it
 *       deleted per second of the phase; the scheduled purge's shows in the expired rows counted
 *       before and after each phase.
 * </ol>
 *
 * <p>The backlog is written in the order its records would have arrived (by expiry: {@code
 * backlog-order=arrival}, the default), as a table that fills over time is laid out on PostgreSQL,
 * whose heap keeps insertion order; {@code key} writes it in key order instead, which scatters
 * records of neighbouring expiry over the whole table. MariaDB keeps rows in primary-key order
 * either way.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.JdbcLargeTableRun
 *     postgresql|mariadb [live=10000000] [seconds=20] [threads=4] [backlog=1000000]
 *     [paced batch=1000] [rounds=2] [backlog-order=arrival|key] [expiry-index=keep|drop]</pre>
 *
 * <p>{@code expiry-index=drop} drops the table's expiry index before the store first uses it, so
 * that its purge walks the primary key (see the JDBC store's documentation).
 *
 * <p>The database is the one of {@code IDEMPOTENT_POSTGRES_URL} or {@code IDEMPOTENT_MARIADB_URL};
 * its table {@value #TABLE} is dropped first and left in place at the end, for inspection.
 */
public final class JdbcLargeTableRun {
  static final String TABLE = "bench_large_record";
  private static final int CHUNK = 1_000_000;
  private static final int ARRIVALS_PER_SECOND = 1_000;
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final Duration LIVE_TTL = Duration.ofDays(1);
  private static final Duration ARRIVAL_TTL = Duration.ofSeconds(20);

  /**
   * The rate of the paced purge: twice the arrival rate, so that it catches up with a backlog too.
   */
  private static final int PACED_PURGE = 2 * ARRIVALS_PER_SECOND;

  /** The purge rate that stands for the store's own scheduled purge ({@code purgeEvery}). */
  private static final int SCHEDULED = -2;

  private JdbcLargeTableRun() {}

  public static void main(String[] args) throws Exception {
    String database = args.length > 0 ? args[0] : "postgresql";
    long live = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 4;
    long backlog = args.length > 4 ? Long.parseLong(args[4]) : 1_000_000L;
    int pacedBatch = args.length > 5 ? Integer.parseInt(args[5]) : 1000;
    int rounds = args.length > 6 ? Integer.parseInt(args[6]) : 2;
    String backlogOrder = args.length > 7 ? args[7] : "arrival";
    if (!backlogOrder.equals("arrival") && !backlogOrder.equals("key")) {
      throw new IllegalArgumentException(
          "backlog order '" + backlogOrder + "': use arrival or key");
    }
    String expiryIndex = args.length > 8 ? args[8] : "keep";
    if (!expiryIndex.equals("keep") && !expiryIndex.equals("drop")) {
      throw new IllegalArgumentException("expiry index '" + expiryIndex + "': use keep or drop");
    }
    boolean walking = expiryIndex.equals("drop");
    String url = BenchmarkSettings.jdbcUrl(database);
    boolean postgres = JdbcRows.isPostgres(url);
    try (HikariDataSource ds = JdbcRows.pool(url, threads + 8)) {
      JdbcRows.dropStoreTables(ds, TABLE);
      try (JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).table(TABLE).createTable(true).build()) {
        if (walking) {
          JdbcRows.dropExpiryIndex(ds, url, TABLE);
          System.out.printf(
              "%s: expiry index dropped; the purge walks the primary key%n", database);
        }
        freshKeyThroughput(store, threads, seconds); // warm-up: JIT, pool, caches
        JdbcRows.execute(ds, "TRUNCATE TABLE " + TABLE);
        analyze(ds, postgres);
        double empty = freshKeyThroughput(store, threads, seconds);
        System.out.printf(
            "%s: fresh-key calls/s on an empty table: %,.0f (%d threads, %d s)%n",
            database, empty, threads, seconds);
        long loadStart = System.nanoTime();
        load(ds, postgres, live, "", "interval '1 day'", "INTERVAL 1 DAY", 3);
        analyze(ds, postgres);
        System.out.printf(
            "%s: loaded %,d live records in %.0f s; table and indexes %,d bytes (%.1f per"
                + " record)%n",
            database,
            live,
            (System.nanoTime() - loadStart) / 1e9,
            JdbcRows.tableBytes(ds, url, TABLE),
            (double) JdbcRows.tableBytes(ds, url, TABLE) / Math.max(1, live));
        double full = freshKeyThroughput(store, threads, seconds);
        System.out.printf(
            "%s: fresh-key calls/s with %,d live records, right after the load: %,.0f = %.2fx of"
                + " the empty table%n",
            database, live, full, full / empty);
        settle(ds, postgres, database);
        double settled = freshKeyThroughput(store, threads, seconds);
        System.out.printf(
            "%s: fresh-key calls/s with %,d live records, the load written out: %,.0f = %.2fx of"
                + " the empty table%n",
            database, live, settled, settled / empty);

        load(
            ds,
            postgres,
            backlog,
            "expired:",
            "interval '-1 hour'",
            "INTERVAL -1 HOUR",
            backlogOrder.equals("key") ? 3 : 2);
        analyze(ds, postgres);
        System.out.printf(
            "%s: backlog of %,d expired records loaded in %s order%n",
            database, backlog, backlogOrder);
        settle(ds, postgres, database);
        String paced = "purge paced to " + PACED_PURGE + " rows/s in batches of " + pacedBatch;
        phase(store, ds, postgres, threads, seconds, -1, 0, walking); // settles; not counted
        Phase withBacklog =
            rounds(
                database,
                "with the backlog",
                rounds,
                paced,
                () -> phase(store, ds, postgres, threads, seconds, -1, 0, walking),
                () ->
                    phase(store, ds, postgres, threads, seconds, PACED_PURGE, pacedBatch, walking));
        Phase unpaced = phase(store, ds, postgres, threads, seconds, 0, 1000, walking);
        report(database, "purge unpaced", unpaced, withBacklog);
        long rest = 0;
        for (int n = 1000; n >= 1000; ) {
          n = store.purgeExpired(1000);
          rest += n;
        }
        System.out.printf(
            "%s: the rest of the backlog purged between the phases: %,d rows%n", database, rest);
        rounds(
            database,
            "after the unpaced purge, the store's own scheduled purge",
            rounds,
            "purgeEvery(1 s, 1000)",
            () -> phase(store, ds, postgres, threads, seconds, -1, 0, walking),
            () -> phase(store, ds, postgres, threads, seconds, SCHEDULED, 1000, walking));
      }
    }
  }

  /** A phase of the measurement. */
  @FunctionalInterface
  private interface PhaseRun {
    Phase run() throws Exception;
  }

  /**
   * {@code rounds} rounds of a phase without a purge, then one with {@code purge}, reported with
   * ratios to the mean of the phases without; returns that mean.
   */
  private static Phase rounds(
      String database, String part, int rounds, String purge, PhaseRun without, PhaseRun with)
      throws Exception {
    List<String> names = new ArrayList<>();
    List<Phase> phases = new ArrayList<>();
    List<Phase> withouts = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      Phase w = without.run();
      withouts.add(w);
      names.add("round " + r + ", without purge");
      phases.add(w);
      names.add("round " + r + ", " + purge);
      phases.add(with.run());
    }
    Phase mean =
        new Phase(
            withouts.stream().mapToDouble(Phase::meanMillis).average().orElseThrow(),
            withouts.stream().mapToDouble(Phase::p99Millis).average().orElseThrow(),
            withouts.stream().mapToDouble(Phase::throughput).average().orElseThrow(),
            0,
            0,
            0,
            0);
    System.out.printf(
        "%s: %s; ratios to the mean of the %d phases without purge (arrival call mean %.2f ms,"
            + " p99 %.2f ms, saturated %,.0f calls/s)%n",
        database, part, rounds, mean.meanMillis, mean.p99Millis, mean.throughput);
    for (int i = 0; i < phases.size(); i++) {
      report(database, names.get(i), phases.get(i), mean);
    }
    return mean;
  }

  /**
   * Inserts {@code rows} completed records, in chunks sorted by the column at {@code orderColumn}
   * of the insert (2 expiry, 3 key), expiring at now plus the given interval. Keys are {@code ord-}
   * and 16 hex digits of MD5 of {@code keySalt} and the row number, so that records loaded with
   * another salt (the expired backlog) are spread over the same key space as the live ones.
   */
  private static void load(
      HikariDataSource ds,
      boolean postgres,
      long rows,
      String keySalt,
      String pgInterval,
      String myInterval,
      int orderColumn)
      throws Exception {
    long scopeId = JdbcRows.scopeId(JdbcRows.SCOPE);
    if (!postgres) {
      JdbcRows.execute(ds, "SET SESSION sql_log_bin = 0");
    }
    for (long from = 0; from < rows; from += CHUNK) {
      long n = Math.min(CHUNK, rows - from);
      String sql;
      if (postgres) {
        sql =
            "INSERT INTO "
                + TABLE
                + " (scope_id, expires_at, idem_key, owner, fingerprint, outcome)"
                + " SELECT "
                + scopeId
                + ", statement_timestamp() + "
                + pgInterval
                + " + (g % 10000) * interval '1 ms',"
                + " 'ord-' || substr(md5('"
                + keySalt
                + "' || g::text), 1, 16), NULL, NULL,"
                + " decode(substr(md5(g::text || 'o') || md5(g::text), 1, 50), 'hex')"
                + " FROM generate_series("
                + (from + 1)
                + ", "
                + (from + n)
                + ") g ORDER BY "
                + orderColumn;
      } else {
        sql =
            "INSERT INTO "
                + TABLE
                + " (scope_id, expires_at, idem_key, owner, fingerprint, outcome)"
                + " SELECT "
                + scopeId
                + ", UTC_TIMESTAMP(6) + "
                + myInterval
                + " + INTERVAL (g MOD 10000) * 1000"
                + " MICROSECOND, CONCAT('ord-', LEFT(MD5(CONCAT('"
                + keySalt
                + "', g)), 16)), NULL,"
                + " NULL, UNHEX(LEFT(CONCAT(MD5(CONCAT(g, 'o')), MD5(g)), 50))"
                + " FROM (SELECT seq + "
                + from
                + " AS g FROM seq_1_to_"
                + n
                + ") s ORDER BY "
                + orderColumn;
      }
      JdbcRows.execute(ds, sql);
    }
  }

  /**
   * Lets the server write out what a bulk load left in memory, so that the next measurement sees a
   * table with those records rather than the flushing of the load: PostgreSQL {@code CHECKPOINT};
   * InnoDB, {@code innodb_max_dirty_pages_pct} set to 0 until at most 1% of the buffer pool's pages
   * are dirty (at most 10 minutes), then set back.
   */
  private static void settle(HikariDataSource ds, boolean postgres, String database)
      throws Exception {
    long start = System.nanoTime();
    if (postgres) {
      JdbcRows.execute(ds, "CHECKPOINT");
    } else {
      double pct =
          Double.parseDouble(JdbcRows.queryText(ds, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct"));
      JdbcRows.execute(ds, "SET GLOBAL innodb_max_dirty_pages_pct = 0");
      try {
        long deadline = start + Duration.ofMinutes(10).toNanos();
        while (dirtyPagesPercent(ds) > 1.0 && System.nanoTime() < deadline) {
          Thread.sleep(1000);
        }
      } finally {
        JdbcRows.execute(ds, "SET GLOBAL innodb_max_dirty_pages_pct = " + pct);
      }
    }
    System.out.printf(
        "%s: load written out in %.0f s%s%n",
        database,
        (System.nanoTime() - start) / 1e9,
        postgres
            ? " (CHECKPOINT)"
            : String.format(", %.1f%% of pages dirty", dirtyPagesPercent(ds)));
  }

  private static double dirtyPagesPercent(HikariDataSource ds) throws Exception {
    return 100.0
        * innodbStatus(ds, "INNODB_BUFFER_POOL_PAGES_DIRTY")
        / Math.max(1, innodbStatus(ds, "INNODB_BUFFER_POOL_PAGES_TOTAL"));
  }

  private static long innodbStatus(HikariDataSource ds, String name) throws Exception {
    return Long.parseLong(
        JdbcRows.queryText(
            ds,
            "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '"
                + name
                + "'"));
  }

  private static void analyze(HikariDataSource ds, boolean postgres) throws Exception {
    JdbcRows.execute(ds, postgres ? "VACUUM ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
  }

  /** Calls per second of claim-then-complete of fresh random keys on {@code threads} threads. */
  private static double freshKeyThroughput(JdbcIdempotencyStore store, int threads, int seconds)
      throws InterruptedException {
    LongAdder calls = new LongAdder();
    AtomicBoolean measuring = new AtomicBoolean(true);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String prefix = JdbcRows.ownerPrefix(new Random());
      Thread w =
          new Thread(
              () -> {
                long n = 0;
                while (measuring.get()) {
                  callOnce(store, prefix + Long.toString(++n, 36), LIVE_TTL);
                  calls.increment();
                }
              },
              "fresh-key-" + t);
      workers.add(w);
    }
    workers.forEach(Thread::start);
    Thread.sleep(Math.min(3, seconds) * 1000L); // warm-up
    long before = calls.sum();
    long start = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long done = calls.sum() - before;
    double elapsed = (System.nanoTime() - start) / 1e9;
    measuring.set(false);
    for (Thread w : workers) {
      w.join();
    }
    return done / elapsed;
  }

  private static void callOnce(JdbcIdempotencyStore store, String owner, Duration ttl) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    RecordKey key = RecordKey.of(JdbcRows.SCOPE, String.format("ord-%016x", random.nextLong()));
    if (!store.claim(key, owner, null, LEASE).isAcquired()) {
      return;
    }
    byte[] outcome = new byte[25];
    random.nextBytes(outcome);
    store.complete(key, owner, outcome, ttl);
  }

  private record Phase(
      double meanMillis,
      double p99Millis,
      double throughput,
      long purged,
      double purgeRate,
      long expiredBefore,
      long expiredAfter) {}

  /** The expired records in the table now (a count over the whole table). */
  private static long expiredRows(HikariDataSource ds, boolean postgres) throws Exception {
    return JdbcRows.queryLong(
        ds,
        "SELECT COUNT(*) FROM "
            + TABLE
            + " WHERE expires_at <= "
            + (postgres ? "statement_timestamp()" : "UTC_TIMESTAMP(6)"));
  }

  private static void report(String database, String name, Phase phase, Phase without) {
    System.out.printf(
        "%s: 1,000 arrivals/s, %s: arrival call mean %.2f ms (%.2fx), p99 %.2f ms; saturated"
            + " fresh-key calls/s %,.0f (%.2fx); purge deleted %,d rows, %,.0f rows/s over the"
            + " phase (%.1fx the arrival rate); expired rows in the table %,d before, %,d"
            + " after%n",
        database,
        name,
        phase.meanMillis,
        phase.meanMillis / without.meanMillis,
        phase.p99Millis,
        phase.throughput,
        phase.throughput / without.throughput,
        phase.purged,
        phase.purgeRate,
        phase.purgeRate / ARRIVALS_PER_SECOND,
        phase.expiredBefore,
        phase.expiredAfter);
  }

  /**
   * 1,000 arrivals a second for the whole phase; their latency over the first half, the saturated
   * fresh-key throughput over the second. With {@code purgeRate} 0, {@code purgeExpired(1000)}
   * (batches back to back) throughout; above 0, {@code purgeBatch(batch)} paced to that many rows a
   * second; below 0, no purge. A batch that deleted nothing pauses the purge for 100 ms, but on a
   * {@code walking} purge, where it only means that the chunk walked held no expired row.
   */
  private static Phase phase(
      JdbcIdempotencyStore store,
      HikariDataSource ds,
      boolean postgres,
      int threads,
      int seconds,
      int purgeRate,
      int batch,
      boolean walking)
      throws Exception {
    boolean purge = purgeRate >= 0;
    long expiredBefore = expiredRows(ds, postgres);
    AutoCloseable scheduled =
        purgeRate == SCHEDULED
            ? JdbcIdempotencyStore.builder(ds)
                .table(TABLE)
                .purgeEvery(Duration.ofSeconds(1), batch)
                .build()
            : null;
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong purged = new AtomicLong();
    long phaseStart = System.nanoTime();
    Thread purger =
        new Thread(
            () -> {
              while (running.get()) {
                int n = purgeRate > 0 ? store.purgeBatch(batch) : store.purgeExpired(1000);
                purged.addAndGet(n);
                if (n == 0 && !walking) {
                  sleep(100);
                } else if (purgeRate > 0) {
                  long due =
                      phaseStart + purged.get() * 1_000_000_000L / purgeRate - System.nanoTime();
                  if (due > 0) {
                    sleep(due / 1_000_000, (int) (due % 1_000_000));
                  }
                }
              }
            },
            "purge");
    int arrivalThreads = 4;
    long[][] latencies = new long[arrivalThreads][ARRIVALS_PER_SECOND / arrivalThreads * seconds];
    int[] counts = new int[arrivalThreads];
    List<Thread> arrivals = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < arrivalThreads; t++) {
      int thread = t;
      String prefix = JdbcRows.ownerPrefix(new Random());
      arrivals.add(
          new Thread(
              () -> {
                long interval = 1_000_000_000L * arrivalThreads / ARRIVALS_PER_SECOND;
                long next = start + thread * interval / arrivalThreads;
                long n = 0;
                while (running.get()) {
                  long wait = next - System.nanoTime();
                  if (wait > 0) {
                    sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                  }
                  next += interval;
                  long t0 = System.nanoTime();
                  callOnce(store, prefix + Long.toString(++n, 36), ARRIVAL_TTL);
                  long took = System.nanoTime() - t0;
                  if (t0 - start < seconds * 500_000_000L
                      && counts[thread] < latencies[thread].length) {
                    latencies[thread][counts[thread]++] = took;
                  }
                }
              },
              "arrivals-" + t));
    }
    if (purge) {
      purger.start();
    }
    arrivals.forEach(Thread::start);
    Thread.sleep(seconds * 500L);
    double throughput = freshKeyThroughput(store, threads, Math.max(1, seconds / 2));
    running.set(false);
    for (Thread a : arrivals) {
      a.join();
    }
    if (purge) {
      purger.join();
    }
    if (scheduled != null) {
      scheduled.close();
    }
    long[] all = new long[Arrays.stream(counts).sum()];
    int at = 0;
    for (int t = 0; t < arrivalThreads; t++) {
      System.arraycopy(latencies[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    double mean = Arrays.stream(all).average().orElse(0) / 1e6;
    double p99 =
        all.length == 0
            ? 0
            : all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6;
    double rate = purged.get() / ((System.nanoTime() - phaseStart) / 1e9);
    return new Phase(
        mean, p99, throughput, purged.get(), rate, expiredBefore, expiredRows(ds, postgres));
  }

  private static void sleep(long millis) {
    sleep(millis, 0);
  }

  private static void sleep(long millis, int nanos) {
    try {
      Thread.sleep(millis, nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
