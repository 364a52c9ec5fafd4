package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.jdbc.internal.Sql;
import dev.idempotent.jdbc.internal.SqlStatements;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class PostgresStoreTest extends JdbcStoreChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.postgres();
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.POSTGRESQL;
  }

  private static String url() {
    return TestDatabases.requireUrl(
        TestDatabases.POSTGRES_VARIABLE,
        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
        5432);
  }

  /**
   * The purge finds expired rows through the expiry index even where the statistics count many of
   * them, where a plain {@code LIMIT} would make the planner scan the table until it found enough
   * (and the whole table once none are left).
   */
  @Test
  void thePurgeReadsTheExpiryIndex() throws Exception {
    String table = "idem_purge_plan_test";
    execute("DROP TABLE IF EXISTS " + table);
    track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    execute(
        "INSERT INTO "
            + table
            + " (scope_id, expires_at, idem_key, owner, outcome) SELECT 1,"
            + " statement_timestamp() + (CASE WHEN g % 3 = 0 THEN -1 ELSE 1 END) * g * interval '1"
            + " second', 'k' || g, NULL, '\\x56'::bytea FROM generate_series(1, 30000) g");
    execute("ANALYZE " + table);
    String purge = SqlStatements.of(JdbcDialect.POSTGRESQL, table).purgeBatch().text();
    StringBuilder plan = new StringBuilder();
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + purge)) {
      ps.setInt(1, 1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    assertThat(plan.toString())
        .contains("Index Scan using " + table + "_expiry_idx")
        .doesNotContain("Seq Scan");
  }

  /**
   * The claim's insert of a taken key (a repeat in a scope of new keys) writes nothing: the
   * conflict check finds the row through the primary key, and no row comes back.
   */
  @Test
  void theClaimOfATakenKeyInsertsNothing() throws Exception {
    String table = "idem_replay_plan_test";
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    RecordKey key = RecordKey.of(scope, "done");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    assertThat(store.complete(key, "o1", new byte[] {7}, LONG)).isTrue();
    Sql claim = SqlStatements.of(JdbcDialect.POSTGRESQL, table).claim();
    StringBuilder plan = new StringBuilder();
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE) " + claim.text())) {
        int i = 1;
        for (Sql.Param p : claim.params()) {
          switch (p) {
            case SCOPE_ID -> ps.setLong(i, key.scopeId());
            case KEY -> ps.setString(i, key.key());
            case OWNER -> ps.setString(i, "o2");
            case FINGERPRINT -> ps.setString(i, null);
            case LEASE -> ps.setLong(i, 60_000_000L);
            default -> throw new AssertionError("unexpected parameter " + p);
          }
          i++;
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
      } finally {
        c.rollback();
      }
    }
    assertThat(plan.toString())
        .contains("Tuples Inserted: 0")
        .contains("Conflicting Tuples: 1")
        .contains("Conflict Resolution: NOTHING")
        .contains("Conflict Arbiter Indexes: " + table + "_pk");
  }

  /**
   * A chunk of the walking purge reads its own rows, not the rest of the primary key. PostgreSQL
   * (15) stops an index scan at a row-value upper bound only at the bound's first column, so chunks
   * bounded that way in the scan read on to the end of their scope every time (a second a chunk at
   * ten million records, 62 rows purged a second). Counted in buffers, which do not depend on the
   * machine's speed: 60,000 rows of one scope take about 250 pages of primary key.
   */
  @Test
  void aWalkingPurgeChunkReadsOnlyItsOwnRows() throws Exception {
    String table = "idem_walk_buffers_test";
    execute("DROP TABLE IF EXISTS " + table);
    track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    execute("DROP INDEX " + table + "_expiry_idx");
    execute(
        "INSERT INTO "
            + table
            + " (scope_id, expires_at, idem_key, owner, outcome) SELECT 1,"
            + " statement_timestamp() - interval '1 hour', 'k-' || lpad(g::text, 6, '0'), NULL,"
            + " '\\x56'::bytea FROM generate_series(1, 60000) g");
    execute("VACUUM ANALYZE " + table);
    SqlStatements sql = SqlStatements.of(JdbcDialect.POSTGRESQL, table);
    // a chunk of 10 from k-000100 up to k-000110, and one that ends at a bound 5 rows on; a page
    // read counts once per row it is read for (about 25 for either), the rest of the primary key
    // about 250
    assertThat(buffersRead(sql.walkDelete(true, true), "k-000100", "k-000110"))
        .as("buffers of a walk delete")
        .isLessThan(100);
    assertThat(buffersRead(sql.walkBound(true, true), "k-000100", "k-000105"))
        .as("buffers of a walk bound")
        .isLessThan(100);
  }

  /** The shared buffers that {@code EXPLAIN ANALYZE} of a walk statement counted, rolled back. */
  private long buffersRead(Sql walk, String after, String upTo) throws Exception {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) " + walk.text())) {
        int i = 1;
        for (Sql.Param p : walk.params()) {
          switch (p) {
            case AFTER_SCOPE_ID, UP_TO_SCOPE_ID -> ps.setLong(i, 1);
            case AFTER_KEY -> ps.setString(i, after);
            case UP_TO_KEY -> ps.setString(i, upTo);
            case LIMIT -> ps.setInt(i, 10);
            case OFFSET -> ps.setInt(i, 9);
            default -> throw new AssertionError("unexpected parameter " + p);
          }
          i++;
        }
        long buffers = 0;
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          String top = "";
          do {
            String line = rs.getString(1);
            if (line.trim().startsWith("Buffers: shared")) {
              top = line;
              break;
            }
          } while (rs.next());
          Matcher m = Pattern.compile("(hit|read|dirtied|written)=(\\d+)").matcher(top);
          while (m.find()) {
            if (m.group(1).equals("hit") || m.group(1).equals("read")) {
              buffers += Long.parseLong(m.group(2));
            }
          }
          assertThat(top).as("the plan's first buffer count").isNotEmpty();
        }
        return buffers;
      } finally {
        c.rollback();
      }
    }
  }

  /**
   * PostgreSQL's duplicate-key error carries the values in its {@code Detail:} (here a unique index
   * on the key alone, which the claim's {@code ON CONFLICT (scope_id, idem_key)} does not cover):
   * neither the store's exception nor its causes, nor what the executor throws or logs, shows the
   * key; the SQLState stays.
   */
  @Test
  void aDuplicateKeyDetailNeverShowsTheKey() throws Exception {
    String table = "idem_detail_test";
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    execute("CREATE UNIQUE INDEX IF NOT EXISTS idem_detail_test_key ON " + table + " (idem_key)");
    String secret = secretKey();
    assertThat(store.claim(RecordKey.of(scope + "-a", secret), "o1", null, LONG).isAcquired())
        .isTrue();
    RecordKey other = RecordKey.of(scope + "-b", secret);
    Throwable thrown = catchThrowable(() -> store.claim(other, "o2", null, LONG));
    assertThat(thrown)
        .isInstanceOf(JdbcStoreException.class)
        .hasMessageContaining("[23505]")
        .hasMessageContaining(other.redactedKey());
    assertThat(((SQLException) thrown.getCause()).getSQLState()).isEqualTo("23505");
    assertCarriesNo(thrown, secret);

    IdempotencyPolicy policy = IdempotencyPolicy.builder(scope + "-b").build();
    Idempotency closed =
        Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
    Throwable failClosed = catchThrowable(() -> closed.execute(policy, secret, () -> "ran"));
    assertThat(failClosed).isInstanceOf(IdempotencyStoreException.class);
    assertCarriesNo(failClosed, secret);
    Idempotency open =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .build());
    String logged = standardErrorOf(() -> open.execute(policy, secret, () -> "ran"));
    assertThat(logged).contains("fail-open").contains("23505").doesNotContain(secret);
  }

  /** On PostgreSQL a statement that failed, even one the caller caught, aborts the transaction. */
  @Override
  AutoCloseable spoilCallerTransaction(Connection caller, RecordKey key) {
    try (Statement st = caller.createStatement()) {
      st.execute("SELECT 1 / 0");
    } catch (SQLException expected) {
      // caught, as a method body might; the transaction is aborted now
    }
    return () -> {};
  }

  @Test
  void connectionKilledMidCallFailsThatCallAndTheNextCallRecovers() throws Exception {
    store(); // creates the table
    String app = "idem-kill-" + Long.toHexString(System.nanoTime());
    String base = url();
    HikariDataSource pool =
        TestDatabases.pool(base + (base.contains("?") ? "&" : "?") + "ApplicationName=" + app, 1);
    JdbcIdempotencyStore store = track(JdbcIdempotencyStore.builder(pool).build());
    RecordKey key = RecordKey.of(scope, "killed");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();

    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (Connection locker = DriverManager.getConnection(base)) {
      locker.setAutoCommit(false);
      lockRow(locker, key);
      Future<Boolean> blocked =
          executor.submit(() -> store.complete(key, "o1", new byte[] {1}, LONG));
      int pid = blockedBackend(locker, app);
      try (PreparedStatement ps = locker.prepareStatement("SELECT pg_terminate_backend(?)")) {
        ps.setInt(1, pid);
        ps.executeQuery().close();
      }
      assertThatThrownBy(() -> blocked.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(JdbcStoreException.class)
          .hasMessageContaining("complete")
          .hasMessageContaining("jdbc:postgresql://");
      locker.rollback();
    } finally {
      executor.shutdownNow();
    }
    assertThat(store.read(key).orElseThrow().isCompleted()).isFalse();
    assertThat(store.complete(key, "o1", new byte[] {2}, LONG)).isTrue();
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(2);
  }

  @Test
  void theTimeoutBoundsABlockedStatement() throws Exception {
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .queryTimeout(Duration.ofSeconds(1))
                .build());
    RecordKey key = RecordKey.of(scope, "slow");
    store.claim(key, "o1", null, LONG);
    try (Connection locker = DriverManager.getConnection(url())) {
      locker.setAutoCommit(false);
      lockRow(locker, key);
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.renew(key, "o1", LONG))
          .isInstanceOf(JdbcStoreException.class)
          .hasMessageContaining("renew")
          // the network timeout cuts the wait (I/O error 08006); a driver without one cancels the
          // query (57014)
          .hasMessageMatching("(?s).*\\[(08006|57014)\\].*");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
      locker.rollback();
    }
    assertThat(store.renew(key, "o1", LONG)).isTrue();
  }

  private static void lockRow(Connection locker, RecordKey key) throws SQLException {
    try (PreparedStatement ps =
        locker.prepareStatement(
            "SELECT 1 FROM idempotency_record WHERE scope_id = ? AND idem_key = ? FOR UPDATE")) {
      ps.setLong(1, key.scopeId());
      ps.setString(2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  private static int blockedBackend(Connection c, String app) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT pid FROM pg_stat_activity WHERE application_name = ?"
                  + " AND wait_event_type = 'Lock'")) {
        ps.setString(1, app);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return rs.getInt(1);
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the store's statement never blocked on the locked row");
  }
}
