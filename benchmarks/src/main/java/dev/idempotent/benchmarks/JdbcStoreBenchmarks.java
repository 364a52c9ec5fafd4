package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.FRESH_TTL;
import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;
import static dev.idempotent.benchmarks.BenchmarkSettings.RETAINED_TTL;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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

/**
 * Target 5: a woven call on the JDBC store against a hand-written claim {@code INSERT} and
 * completion {@code UPDATE} on the same HikariCP pool and table; and a woven replay against one
 * hand-written {@code SELECT} of the outcome. The database comes from {@code
 * IDEMPOTENT_POSTGRES_URL} or {@code IDEMPOTENT_MARIADB_URL} (local defaults). The benchmark works
 * in its own tables ({@value #TABLE} and the two next to it), emptied before and after each trial;
 * the replay benchmarks record their keys on both sides after the emptying ({@link RecordedKeys}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class JdbcStoreBenchmarks {
  static final String TABLE = "bench_idempotency_record";
  static final int POOL_SIZE = 16;

  @Param({"postgresql", "mariadb"})
  public String database;

  private HikariDataSource pool;
  private JdbcIdempotencyStore store;
  private OrderService service;
  private JdbcBaseline baseline;

  @Setup(Level.Trial)
  public void setUp() throws SQLException {
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(BenchmarkSettings.jdbcUrl(database));
    hikari.setMaximumPoolSize(POOL_SIZE);
    hikari.setPoolName("bench-" + database);
    try {
      pool = new HikariDataSource(hikari);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot reach "
              + database
              + "; set "
              + BenchmarkSettings.jdbcVariable(database)
              + ": "
              + e,
          e);
    }
    store = JdbcIdempotencyStore.builder(pool).table(TABLE).createTable(true).build();
    emptyTable();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
    service = new OrderService();
    WeavingCheck.requireReplay(
        "OrderService.submit", service::submit, "weaving-check-" + System.nanoTime());
    baseline = new JdbcBaseline(pool, database, TABLE, LEASE, FRESH_TTL);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws SQLException {
    Idempotency.reset();
    try {
      emptyTable();
    } finally {
      store.close();
      pool.close();
    }
  }

  /** Target 5, ours: a woven call with a key never seen before. */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT);
  }

  /** Target 5, baseline: claim {@code INSERT}, body, encode, completion {@code UPDATE}. */
  @Benchmark
  public Receipt freshKeyBaseline(KeyStreams.FreshKeys keys) throws SQLException {
    return baseline.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours: a woven call of a completed key. */
  @Benchmark
  public Receipt replayWoven(RecordedKeys recorded, KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(recorded.keys), AMOUNT);
  }

  /** Replay, baseline: one {@code SELECT} of the outcome and the same decoding. */
  @Benchmark
  public Receipt replayBaseline(RecordedKeys recorded, KeyStreams.ReplayCursor cursor)
      throws SQLException {
    return recorded.baseline.replay(cursor.next(recorded.keys));
  }

  /**
   * Replay, a hand-written de-duplicator's: the claim {@code INSERT} finds the key taken, then one
   * {@code SELECT} of the outcome and the same decoding.
   */
  @Benchmark
  public Receipt replayAfterClaimBaseline(RecordedKeys recorded, KeyStreams.ReplayCursor cursor)
      throws SQLException {
    return recorded.baseline.replayAfterClaim(cursor.next(recorded.keys), "repeat");
  }

  /**
   * The completed keys the replay benchmarks cycle through, recorded on both sides (through the
   * woven method and through the baseline, in the same table) once the trial's table is empty; only
   * the replay benchmarks set it up.
   */
  @State(Scope.Benchmark)
  public static class RecordedKeys {
    String[] keys;
    JdbcBaseline baseline;

    @Setup(Level.Trial)
    public void record(JdbcStoreBenchmarks bench) {
      keys = KeyStreams.replayKeys(REPLAY_KEYS);
      baseline = new JdbcBaseline(bench.pool, bench.database, TABLE, LEASE, RETAINED_TTL);
      for (int i = 0; i < keys.length; i++) {
        bench.service.submitRetained(keys[i], AMOUNT);
        try {
          baseline.submit(keys[i], "setup-" + i, AMOUNT);
        } catch (SQLException e) {
          throw new IllegalStateException("recording the baseline's replay keys failed", e);
        }
      }
      WeavingCheck.requireRecorded(
          "OrderService.submitRetained", bench.service::submitRetained, keys[0], AMOUNT);
    }
  }

  /**
   * Empties the record table with {@code TRUNCATE}: a {@code DELETE} of the previous trial's rows
   * would leave the database cleaning them up (InnoDB purge, PostgreSQL vacuum) during the next
   * trial, which JMH runs after it: the woven trials always follow a baseline one.
   */
  private void emptyTable() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      st.executeUpdate("TRUNCATE TABLE " + TABLE);
    }
  }
}
