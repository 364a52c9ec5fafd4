package dev.idempotent.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** What the JDBC size and large-table runs share: realistic record values, pools, sizes and DDL. */
final class JdbcRows {
  /** A scope as the aspect names it: the method's signature. */
  static final String SCOPE =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)";

  private JdbcRows() {}

  /** A pool of {@code size} connections to {@code url}. */
  static HikariDataSource pool(String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(10_000);
    return new HikariDataSource(config);
  }

  /** The id the store writes for {@code scope}: the first 64 bits of its SHA-256, signed. */
  static long scopeId(String scope) {
    return RecordKey.scopeIdOf(scope);
  }

  /** The store's tables of record table {@code table}: the records, the scopes, the version. */
  static List<String> storeTables(String table) {
    return List.of(table, table + "_scope", table + "_meta");
  }

  /** Drops the store's tables of record table {@code table}, where they are. */
  static void dropStoreTables(HikariDataSource ds, String table) throws SQLException {
    for (String t : storeTables(table)) {
      execute(ds, "DROP TABLE IF EXISTS " + t);
    }
  }

  /** A 20-character user key, as a client would send it. */
  static String userKey(Random random) {
    return String.format("ord-%016x", random.nextLong());
  }

  /**
   * An owner token shaped like the ones the executor makes: 64 random bits in base 36, then a
   * counter.
   */
  static String ownerPrefix(Random random) {
    return Long.toUnsignedString(random.nextLong(), 36) + ":";
  }

  /** A 25-byte encoded outcome. */
  static byte[] outcome(Random random) {
    byte[] bytes = new byte[25];
    random.nextBytes(bytes);
    return bytes;
  }

  /** The work of one of {@link #onThreads}' threads. */
  interface ThreadWork {
    void run(int thread) throws Exception;
  }

  /** Runs {@code work} on {@code threads} threads, numbered from 0, and waits for all of them. */
  static void onThreads(int threads, ThreadWork work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  work.run(thread);
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  static boolean isPostgres(String url) {
    return url.startsWith("jdbc:postgresql:");
  }

  static void execute(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /**
   * Drops the expiry index that {@code createTable(true)} gave {@code table}; a store that has not
   * yet used the table then purges it by walking its primary key.
   */
  static void dropExpiryIndex(HikariDataSource ds, String url, String table) throws SQLException {
    execute(
        ds,
        isPostgres(url)
            ? "DROP INDEX " + table + "_expiry_idx"
            : "DROP INDEX " + table + "_expires_at_idx ON " + table);
  }

  static long queryLong(HikariDataSource ds, String sql) throws SQLException {
    return firstValue(ds, sql, rs -> rs.getLong(1));
  }

  /** The first column of the first row of {@code sql}, as text. */
  static String queryText(HikariDataSource ds, String sql) throws SQLException {
    return firstValue(ds, sql, rs -> rs.getString(1));
  }

  /** Reads a value of the first row of a result. */
  @FunctionalInterface
  private interface FirstRow<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private static <T> T firstValue(HikariDataSource ds, String sql, FirstRow<T> value)
      throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return value.read(rs);
    }
  }

  /**
   * The bytes of {@code table} with all its indexes, after statistics are refreshed: PostgreSQL
   * {@code pg_total_relation_size} after {@code VACUUM ANALYZE}, InnoDB the pages of all its
   * indexes (the clustered one holds the rows) times the page size, after {@code ANALYZE TABLE}.
   */
  static long tableBytes(HikariDataSource ds, String url, String table) throws SQLException {
    if (isPostgres(url)) {
      execute(ds, "VACUUM ANALYZE " + table);
      return queryLong(ds, "SELECT pg_total_relation_size('" + table + "')");
    }
    execute(ds, "ANALYZE TABLE " + table);
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT SUM(stat_value) * @@innodb_page_size FROM mysql.innodb_index_stats WHERE"
                    + " database_name = DATABASE() AND table_name = ? AND stat_name = 'size'")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * The bytes of {@code table}'s secondary indexes (all but the primary key), as {@link
   * #tableBytes} counts.
   */
  static long secondaryIndexBytes(HikariDataSource ds, String url, String table)
      throws SQLException {
    if (isPostgres(url)) {
      return queryLong(
          ds,
          "SELECT COALESCE(SUM(pg_relation_size(indexrelid)), 0) FROM pg_index WHERE indrelid = '"
              + table
              + "'::regclass AND NOT indisprimary");
    }
    return queryLong(
        ds,
        "SELECT COALESCE(SUM(stat_value), 0) * @@innodb_page_size FROM mysql.innodb_index_stats"
            + " WHERE database_name = DATABASE() AND table_name = '"
            + table
            + "' AND stat_name = 'size'"
            + " AND index_name <> 'PRIMARY'");
  }

  /** Rewrites {@code table} compactly: {@code VACUUM FULL} or {@code OPTIMIZE TABLE}. */
  static void rebuild(HikariDataSource ds, String url, String table) throws SQLException {
    execute(ds, isPostgres(url) ? "VACUUM FULL " + table : "OPTIMIZE TABLE " + table);
  }

  /** The least a record can be: the user's key as the primary key, and the encoded outcome. */
  static String minimalDdl(String url, String table) {
    return isPostgres(url)
        ? "CREATE TABLE " + table + " (idem_key VARCHAR(255) PRIMARY KEY, outcome BYTEA)"
        : "CREATE TABLE "
            + table
            + " (idem_key VARBINARY(1020) NOT NULL PRIMARY KEY, outcome LONGBLOB)"
            + " ENGINE=InnoDB";
  }
}
