package dev.idempotent.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Random;

/**
 * Bytes per live record of the JDBC store's table once records come and go, against the minimal
 * table (user's key and outcome) under the same churn: a generation of records is written (through
 * the store: claim, then complete; plain inserts into the minimal table), then each round writes
 * the next generation and deletes the one before it, as the purge would once it expired, in {@value
 * #STEPS} steps each followed by a plain {@code VACUUM} (PostgreSQL, as autovacuum would run) or
 * the wait for InnoDB's purge, and measures both tables. So the space a claim's row version leaves
 * behind, which {@link RowSizeReport} counts in a table as written, is reused by later records, as
 * in a table that has been in use for a while. The records are those of {@link RowSizeReport}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.RowSizeChurn [records] [rounds]
 * </pre>
 */
public final class RowSizeChurn {
  private static final String STORE_TABLE = "bench_churn_record";
  private static final String MINIMAL = "bench_churn_minimal";
  private static final int THREADS = 4;

  /**
   * Each round turns the records over in this many steps, each followed by a plain {@code VACUUM}
   * (PostgreSQL) or the wait for InnoDB's purge: a tenth of the live records written and a tenth
   * deleted between two vacuums, where autovacuum's defaults start one once a fifth of a table is
   * dead.
   */
  private static final int STEPS = 10;

  private RowSizeChurn() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    System.out.printf(
        "%,d live records; each round writes %,d more and deletes the %,d before them, in %d steps"
            + " each followed by a vacuum%n%n",
        records, records, records, STEPS);
    System.out.println(
        "| database | round | store table, bytes/live record | minimal, bytes/live record | ratio"
            + " |");
    System.out.println("|---|--:|--:|--:|--:|");
    run(
        "PostgreSQL",
        BenchmarkSettings.address(BenchmarkSettings.POSTGRES_URL_VARIABLE),
        records,
        rounds);
    run(
        "MariaDB",
        BenchmarkSettings.address(BenchmarkSettings.MARIADB_URL_VARIABLE),
        records,
        rounds);
  }

  private static void run(String name, String url, int records, int rounds) {
    try (HikariDataSource ds = JdbcRows.pool(url, THREADS + 1)) {
      JdbcRows.dropStoreTables(ds, STORE_TABLE);
      JdbcRows.execute(ds, "DROP TABLE IF EXISTS " + MINIMAL);
      JdbcRows.execute(ds, JdbcRows.minimalDdl(url, MINIMAL));
      String insertMinimal = "INSERT INTO " + MINIMAL + " (idem_key, outcome) VALUES (?, ?)";
      String deleteMinimal = "DELETE FROM " + MINIMAL + " WHERE idem_key = ?";
      try (JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).table(STORE_TABLE).createTable(true).build()) {
        for (int round = 0; round <= rounds; round++) {
          for (int step = 0; step < STEPS; step++) {
            int from = step * records / STEPS;
            int to = (step + 1) * records / STEPS;
            int generation = round;
            forEachRecord(
                records,
                generation,
                from,
                to,
                (key, owner, outcome) -> write(store, key, owner, outcome));
            batch(ds, url, insertMinimal, records, generation, from, to, true);
            if (round > 0) {
              forEachRecord(
                  records, generation - 1, from, to, (key, owner, outcome) -> store.delete(key));
              batch(ds, url, deleteMinimal, records, generation - 1, from, to, false);
            }
            if (JdbcRows.isPostgres(url)) {
              JdbcRows.execute(ds, "VACUUM " + STORE_TABLE);
              JdbcRows.execute(ds, "VACUUM " + MINIMAL);
            } else {
              awaitInnodbPurge(ds);
            }
          }
          long storeBytes = 0;
          for (String t : JdbcRows.storeTables(STORE_TABLE)) {
            storeBytes += JdbcRows.tableBytes(ds, url, t);
          }
          long minimalBytes = JdbcRows.tableBytes(ds, url, MINIMAL);
          System.out.printf(
              "| %s | %d | %.1f | %.1f | %.2fx |%n",
              name,
              round,
              (double) storeBytes / records,
              (double) minimalBytes / records,
              (double) storeBytes / minimalBytes);
        }
      }
    } catch (Exception e) {
      System.out.printf("| %s | skipped: %s |%n", name, e);
    }
  }

  private interface RecordWork {
    void apply(RecordKey key, String owner, byte[] outcome) throws Exception;
  }

  /** The key, owner and outcome of record {@code i} of generation {@code round}. */
  private static Random values(int records, int round, int i) {
    return new Random((long) round * records + i);
  }

  /**
   * Runs {@code work} for every record of generation {@code round}, on {@value #THREADS} threads.
   */
  private static void forEachRecord(int records, int round, int from, int to, RecordWork work)
      throws Exception {
    JdbcRows.onThreads(
        THREADS,
        thread -> {
          String prefix = JdbcRows.ownerPrefix(new Random(round * 31L + thread));
          for (int i = from + thread; i < to; i += THREADS) {
            Random values = values(records, round, i);
            RecordKey key = RecordKey.of(JdbcRows.SCOPE, JdbcRows.userKey(values));
            work.apply(key, prefix + Long.toString(i / THREADS + 1, 36), JdbcRows.outcome(values));
          }
        });
  }

  private static void write(
      JdbcIdempotencyStore store, RecordKey key, String owner, byte[] outcome) {
    if (!store.claim(key, owner, null, Duration.ofMinutes(1)).isAcquired()) {
      throw new IllegalStateException("the key of " + key + " was taken");
    }
    if (!store.complete(key, owner, outcome, Duration.ofDays(1))) {
      throw new IllegalStateException("completion of " + key + " refused");
    }
  }

  /**
   * Runs {@code sql} on the minimal table for records {@code from} to {@code to} (exclusive) of
   * generation {@code round}, binding the key and, when {@code withOutcome}, the outcome.
   */
  private static void batch(
      HikariDataSource ds,
      String url,
      String sql,
      int records,
      int round,
      int from,
      int to,
      boolean withOutcome)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = from; i < to; i++) {
        Random values = values(records, round, i);
        String key = JdbcRows.userKey(values);
        if (JdbcRows.isPostgres(url)) {
          ps.setString(1, key);
        } else {
          ps.setBytes(1, key.getBytes(StandardCharsets.UTF_8));
        }
        byte[] outcome = JdbcRows.outcome(values);
        if (withOutcome) {
          ps.setBytes(2, outcome);
        }
        ps.addBatch();
        if (i % 1000 == 999) {
          ps.executeBatch();
        }
      }
      ps.executeBatch();
    }
  }

  /** Waits (up to a minute) until InnoDB has purged the deleted rows' history. */
  private static void awaitInnodbPurge(HikariDataSource ds) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (System.nanoTime() < deadline) {
      long history =
          JdbcRows.queryLong(
              ds,
              "SELECT count FROM information_schema.INNODB_METRICS WHERE name ="
                  + " 'trx_rseg_history_len'");
      if (history < 100) {
        return;
      }
      Thread.sleep(200);
    }
  }
}
