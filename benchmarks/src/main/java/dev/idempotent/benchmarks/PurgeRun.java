package dev.idempotent.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Measures {@link JdbcIdempotencyStore#purgeExpired(int)} on a table holding many expired records,
 * while another thread keeps claiming and completing live keys in the same table. The purge deletes
 * in bounded batches, so the live calls are never blocked for longer than one batch: the report
 * shows their worst latency next to the purge's throughput.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.PurgeRun [rows] [batch]
 * </pre>
 */
public final class PurgeRun {
  private static final String TABLE = "bench_purge_record";
  private static final long PURGE_SCOPE_ID = JdbcRows.scopeId("purge");

  private PurgeRun() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    System.out.printf(
        "| database | expired rows | batch | purge time | rows/s | live calls during purge | worst"
            + " live call | live call p99 |%n");
    System.out.printf("|---|--:|--:|--:|--:|--:|--:|--:|%n");
    run(
        "PostgreSQL",
        BenchmarkSettings.address(BenchmarkSettings.POSTGRES_URL_VARIABLE),
        rows,
        batch,
        "INSERT INTO "
            + TABLE
            + " (scope_id, idem_key, owner, fingerprint, outcome, expires_at)"
            + " SELECT "
            + PURGE_SCOPE_ID
            + ", 'k' || g, NULL, NULL, '\\x56'::bytea, now() - interval '1 hour'"
            + " FROM generate_series(1, "
            + rows
            + ") g");
    run(
        "MariaDB",
        BenchmarkSettings.address(BenchmarkSettings.MARIADB_URL_VARIABLE),
        rows,
        batch,
        "INSERT INTO "
            + TABLE
            + " (scope_id, idem_key, owner, fingerprint, outcome, expires_at)"
            + " SELECT "
            + PURGE_SCOPE_ID
            + ", CONCAT('k', seq), NULL, NULL, 'V', UTC_TIMESTAMP(6) - INTERVAL 1 HOUR"
            + " FROM seq_1_to_"
            + rows);
  }

  private static void run(String name, String url, int rows, int batch, String fill)
      throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    config.setConnectionTimeout(3_000);
    try (HikariDataSource ds = new HikariDataSource(config)) {
      drop(ds);
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).table(TABLE).createTable(true).build();
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        st.execute(fill);
      }
      List<Long> live = Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean purging = new AtomicBoolean(true);
      Thread prober =
          new Thread(
              () -> {
                int i = 0;
                while (purging.get()) {
                  RecordKey key = RecordKey.of("live", "k" + i++);
                  long t0 = System.nanoTime();
                  store.claim(key, "o", null, Duration.ofMinutes(5));
                  store.complete(key, "o", new byte[] {'V'}, Duration.ofHours(1));
                  live.add(System.nanoTime() - t0);
                  try {
                    Thread.sleep(2);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "live-calls");
      long start = System.nanoTime();
      prober.start();
      int deleted = store.purgeExpired(batch);
      long took = System.nanoTime() - start;
      purging.set(false);
      prober.join();
      long remainingExpired =
          JdbcRows.queryLong(
              ds, "SELECT COUNT(*) FROM " + TABLE + " WHERE scope_id = " + PURGE_SCOPE_ID);
      if (deleted != rows || remainingExpired != 0) {
        throw new IllegalStateException(
            name
                + ": purge deleted "
                + deleted
                + " of "
                + rows
                + ", "
                + remainingExpired
                + " expired rows left");
      }
      List<Long> sorted = new ArrayList<>(live);
      Collections.sort(sorted);
      long worst = sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1);
      long p99 =
          sorted.isEmpty()
              ? 0
              : sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(sorted.size() * 0.99) - 1));
      System.out.printf(
          "| %s | %,d | %,d | %.1f s | %,.0f | %,d | %.1f ms | %.1f ms |%n",
          name,
          rows,
          batch,
          took / 1e9,
          rows / (took / 1e9),
          sorted.size(),
          worst / 1e6,
          p99 / 1e6);
      store.close();
      drop(ds);
    } catch (SQLException | RuntimeException e) {
      System.out.printf("| %s | skipped: %s |%n", name, e.getMessage());
    }
  }

  private static void drop(HikariDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      for (String t : JdbcRows.storeTables(TABLE)) {
        st.execute("DROP TABLE IF EXISTS " + t);
      }
    }
  }
}
