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
 * Bytes per record of the JDBC store's tables (rows and all indexes, with the scope and format
 * tables next to the records) on PostgreSQL and MariaDB, as the shipped DDL creates them, the same
 * without the expiry index (the store then purges by walking the primary key), and a minimal table
 * holding only the user's key (its primary key) and the encoded outcome. The same records go into
 * each: completed ones of one realistic scope (a method signature), 20-character user keys, 25-byte
 * outcomes, no fingerprint; the two store tables are written through the store (claim, then
 * complete), the minimal table by plain inserts, all in the same random key order. Sizes are given
 * as written (after {@code VACUUM}/{@code ANALYZE}) and rebuilt ({@code VACUUM FULL} / {@code
 * OPTIMIZE TABLE}). The databases are those of {@code IDEMPOTENT_POSTGRES_URL} and {@code
 * IDEMPOTENT_MARIADB_URL} (default: the local servers' {@code test} databases).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.RowSizeReport [records]
 * </pre>
 */
public final class RowSizeReport {
  private static final String CURRENT = "bench_size_record";
  private static final String NO_EXPIRY_INDEX = "bench_size_no_expiry_index";
  private static final String MINIMAL = "bench_size_minimal";
  private static final int THREADS = 4;

  private RowSizeReport() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    System.out.printf(
        "%,d completed records, scope %s (%d characters), 20-character keys, 25-byte outcomes%n%n",
        records, JdbcRows.SCOPE, JdbcRows.SCOPE.length());
    System.out.println(
        "| database | table | bytes/record as written | ratio to minimal | bytes/record rebuilt"
            + " | ratio to minimal | of which secondary indexes, rebuilt |");
    System.out.println("|---|---|--:|--:|--:|--:|--:|");
    run("PostgreSQL", BenchmarkSettings.address(BenchmarkSettings.POSTGRES_URL_VARIABLE), records);
    run("MariaDB", BenchmarkSettings.address(BenchmarkSettings.MARIADB_URL_VARIABLE), records);
  }

  private static void run(String name, String url, int records) {
    try (HikariDataSource ds = JdbcRows.pool(url, THREADS + 1)) {
      JdbcRows.dropStoreTables(ds, CURRENT);
      JdbcRows.dropStoreTables(ds, NO_EXPIRY_INDEX);
      JdbcRows.execute(ds, "DROP TABLE IF EXISTS " + MINIMAL);
      JdbcRows.execute(ds, JdbcRows.minimalDdl(url, MINIMAL));
      try (JdbcIdempotencyStore current =
              JdbcIdempotencyStore.builder(ds).table(CURRENT).createTable(true).build();
          JdbcIdempotencyStore noExpiryIndex =
              JdbcIdempotencyStore.builder(ds).table(NO_EXPIRY_INDEX).createTable(true).build()) {
        JdbcRows.dropExpiryIndex(ds, url, NO_EXPIRY_INDEX);
        writeThroughStore(current, records);
        writeThroughStore(noExpiryIndex, records);
      }
      writeMinimal(ds, url, records);
      String[] tables = {CURRENT, NO_EXPIRY_INDEX, MINIMAL};
      String[] names = {
        "store tables", "store tables without the expiry index", "minimal (key, outcome)"
      };
      int minimal = tables.length - 1;
      long[] written = new long[tables.length];
      for (int i = 0; i < tables.length; i++) {
        written[i] = storeBytes(ds, url, tables[i]);
      }
      for (String t : tables) {
        JdbcRows.rebuild(ds, url, t);
      }
      long[] rebuilt = new long[tables.length];
      for (int i = 0; i < tables.length; i++) {
        rebuilt[i] = storeBytes(ds, url, tables[i]);
      }
      for (int i = 0; i < tables.length; i++) {
        System.out.printf(
            "| %s | %s | %.1f | %.2fx | %.1f | %.2fx | %.1f |%n",
            name,
            names[i],
            (double) written[i] / records,
            (double) written[i] / written[minimal],
            (double) rebuilt[i] / records,
            (double) rebuilt[i] / rebuilt[minimal],
            (double) JdbcRows.secondaryIndexBytes(ds, url, tables[i]) / records);
      }
    } catch (Exception e) {
      System.out.printf("| %s | skipped: %s |%n", name, e);
    }
  }

  /** The bytes of {@code table}, with the scope and format tables next to a store's table. */
  private static long storeBytes(HikariDataSource ds, String url, String table)
      throws SQLException {
    if (table.equals(MINIMAL)) {
      return JdbcRows.tableBytes(ds, url, table);
    }
    long bytes = 0;
    for (String t : JdbcRows.storeTables(table)) {
      bytes += JdbcRows.tableBytes(ds, url, t);
    }
    return bytes;
  }

  /**
   * Claims and completes {@code records} keys, on {@value #THREADS} threads, each its share in key
   * order.
   */
  private static void writeThroughStore(JdbcIdempotencyStore store, int records) throws Exception {
    JdbcRows.onThreads(
        THREADS,
        thread -> {
          Random random = new Random(thread);
          String prefix = JdbcRows.ownerPrefix(random);
          for (int i = thread; i < records; i += THREADS) {
            Random values = new Random(i);
            RecordKey key = RecordKey.of(JdbcRows.SCOPE, JdbcRows.userKey(values));
            String owner = prefix + Long.toString(i / THREADS + 1, 36);
            store.claim(key, owner, null, Duration.ofMinutes(1));
            if (!store.complete(key, owner, JdbcRows.outcome(values), Duration.ofDays(1))) {
              throw new IllegalStateException("completion of " + key + " refused");
            }
          }
        });
  }

  private static void writeMinimal(HikariDataSource ds, String url, int records)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO " + MINIMAL + " (idem_key, outcome) VALUES (?, ?)")) {
      for (int i = 0; i < records; i++) {
        Random values = new Random(i);
        String key = JdbcRows.userKey(values);
        if (JdbcRows.isPostgres(url)) {
          ps.setString(1, key);
        } else {
          ps.setBytes(1, key.getBytes(StandardCharsets.UTF_8));
        }
        ps.setBytes(2, JdbcRows.outcome(values));
        ps.addBatch();
        if (i % 1000 == 999) {
          ps.executeBatch();
        }
      }
      ps.executeBatch();
    }
  }
}
