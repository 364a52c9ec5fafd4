package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.jdbc.internal.SqlAccessor;
import dev.idempotent.jdbc.internal.SqlStatements;
import dev.idempotent.jdbc.internal.SqlStatements.Inserted;
import dev.idempotent.jdbc.internal.Values;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MariaDbStoreTest extends JdbcStoreChecks {
  @Override
  DataSource dataSource() {
    return TestDatabases.mariadb();
  }

  @Override
  JdbcDialect expectedDialect() {
    return JdbcDialect.MARIADB;
  }

  private static String url() {
    return url("");
  }

  private static String url(String property) {
    return TestDatabases.mariadbUrl(property);
  }

  /**
   * A claim answers exactly what it did whatever the driver's affected-rows setting, in MariaDB's
   * dialect and in MySQL's: acquired, existing, a takeover of an expired claim, the reuse of an
   * expired completed record.
   */
  @ParameterizedTest
  @CsvSource({
    "MARIADB, ''",
    "MARIADB, useAffectedRows=true",
    "MYSQL, ''",
    "MYSQL, useAffectedRows=true",
    "MYSQL, useAffectedRows=false"
  })
  void claimOutcomeDoesNotDependOnAffectedRowsSetting(JdbcDialect dialect, String property)
      throws Exception {
    store();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(TestDatabases.pool(url(property), 2))
                .dialect(dialect)
                .build());
    RecordKey key = RecordKey.of(scope, "k");
    ClaimResult first = store.claim(key, "o1", null, LONG);
    assertThat(first.isAcquired()).isTrue();
    assertThat(first.isTakeover()).isFalse();
    assertThat(store.claim(key, "o2", null, LONG).existing().ownerToken()).isEqualTo("o1");
    RecordKey shortLived = RecordKey.of(scope, "short");
    assertThat(store.claim(shortLived, "o1", "f", Duration.ofMillis(1)).isAcquired()).isTrue();
    Thread.sleep(20);
    assertThat(store.claim(shortLived, "o2", "f", LONG).isTakeover()).isTrue();
    assertThat(store.claim(shortLived, "o3", "f", LONG).existing().ownerToken()).isEqualTo("o2");
    RecordKey done = RecordKey.of(scope, "done");
    store.claim(done, "o1", null, LONG);
    store.complete(done, "o1", new byte[] {1}, Duration.ofMillis(1));
    Thread.sleep(20);
    ClaimResult reuse = store.claim(done, "o2", null, LONG);
    assertThat(reuse.isAcquired()).isTrue();
    assertThat(reuse.isTakeover()).isFalse();
    assertThat(store.read(done).orElseThrow().ownerToken()).isEqualTo("o2");
  }

  /**
   * {@code createTable(true)} on a database without the tables asks the driver's metadata whether
   * they are there: a statement on a missing table would be a server error, which the MariaDB
   * driver logs at WARN.
   */
  @Test
  void creatingTheTablesLogsNoServerError() throws Exception {
    String table = "idem_fresh_create_test";
    for (String t : List.of(table, table + "_scope", table + "_meta")) {
      execute("DROP TABLE IF EXISTS " + t);
    }
    String log =
        standardErrorOf(
            () ->
                track(
                    JdbcIdempotencyStore.builder(dataSource())
                        .table(table)
                        .createTable(true)
                        .build()));
    assertThat(log).doesNotContain("ErrorPacket").doesNotContain("doesn't exist");
    assertThat(count(table + "_meta")).isOne();
  }

  /**
   * MySQL's claim on a fresh key is one insert that reports its code; on a taken key it answers
   * TAKEN without writing, whatever the affected-rows setting.
   */
  @ParameterizedTest
  @ValueSource(strings = {"", "useAffectedRows=true", "useAffectedRows=false"})
  void mySqlsClaimAnswersTakenForATakenKey(String property) throws Exception {
    store();
    SqlStatements sql = SqlStatements.of(JdbcDialect.MYSQL, JdbcIdempotencyStore.DEFAULT_TABLE);
    SqlAccessor db = new SqlAccessor(sql);
    RecordKey key = RecordKey.of(scope, "first");
    try (Connection c = DriverManager.getConnection(url(property))) {
      SqlAccessor.Counted first =
          db.updateWithCode(c, 5, sql.claim(), Values.claim(key, "o1", null, 60_000_000L));
      assertThat(sql.inserted(first.rows(), first.code())).isEqualTo(Inserted.WON);
      SqlAccessor.Counted second =
          db.updateWithCode(c, 5, sql.claim(), Values.claim(key, "o2", null, 60_000_000L));
      assertThat(sql.inserted(second.rows(), second.code())).isEqualTo(Inserted.TAKEN);
    }
    assertThat(store().read(key).orElseThrow().ownerToken()).isEqualTo("o1");
  }

  /**
   * Where something between the driver and the server drops the codes (here: every generated-key
   * result comes back empty), an insert that reports nothing is not taken for a win: the store
   * reads the row back, so a taken key is still refused and an expired one still taken over.
   */
  @Test
  void aConnectionThatDropsTheCodesStillClaimsExactlyOnce() throws Exception {
    store();
    DataSource dropping = proxied(dataSource(), new AtomicBoolean(true), new ArrayList<>());
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dropping).dialect(JdbcDialect.MYSQL).build());
    RecordKey key = RecordKey.of(scope, "k");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    ClaimResult repeat = store.claim(key, "o2", null, LONG);
    assertThat(repeat.isAcquired()).isFalse();
    assertThat(repeat.existing().ownerToken()).isEqualTo("o1");
    RecordKey shortLived = RecordKey.of(scope, "short");
    assertThat(store.claim(shortLived, "o1", null, Duration.ofMillis(300)).isAcquired()).isTrue();
    Thread.sleep(400);
    assertThat(store.claim(shortLived, "o2", null, LONG).isAcquired()).isTrue();
    assertThat(store.read(shortLived).orElseThrow().ownerToken()).isEqualTo("o2");
  }

  /**
   * A fresh-key claim is one statement that reports its code, on connections of either
   * affected-rows setting, once the store has written the scope's text (on its first claim in the
   * scope).
   */
  @ParameterizedTest
  @ValueSource(strings = {"", "useAffectedRows=true"})
  void aFreshKeyClaimIsOneStatementWithItsCode(String property) throws Exception {
    store();
    List<String> prepared = new ArrayList<>();
    DataSource counted =
        proxied(TestDatabases.pool(url(property), 2), new AtomicBoolean(), prepared);
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(counted).dialect(JdbcDialect.MYSQL).build());
    assertThat(store.claim(RecordKey.of(scope, "first"), "o0", null, LONG).isAcquired()).isTrue();
    assertThat(prepared)
        .as("statements of the first claim in the scope")
        .anyMatch(s -> s.contains("_scope"));
    prepared.clear();
    RecordKey key = RecordKey.of(scope, "k");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    assertThat(prepared).as("statements of a fresh-key claim").hasSize(1);
    assertThat(prepared.get(0)).startsWith("INSERT").contains("LAST_INSERT_ID");
    ClaimResult repeat = store.claim(key, "o2", null, LONG);
    assertThat(repeat.isAcquired()).isFalse();
    assertThat(repeat.existing().ownerToken()).isEqualTo("o1");
  }

  /**
   * A claim proves its own win: where the codes stop coming back after the store's first claims (a
   * proxy put in, a routing data source that moves to another server), a taken key is still refused
   * on connections of either affected-rows setting. Before claims carried a code of their own on
   * insert, "no code" was taken to mean "inserted" on connections that count found rows, once the
   * first claim had seen the codes.
   */
  @ParameterizedTest
  @ValueSource(strings = {"", "useAffectedRows=true"})
  void codesLostAfterTheFirstClaimsNeverMakeADuplicateLookWon(String property) throws Exception {
    store();
    AtomicBoolean dropKeys = new AtomicBoolean();
    DataSource dropping =
        proxied(TestDatabases.pool(url(property), 2), dropKeys, new ArrayList<>());
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dropping).dialect(JdbcDialect.MYSQL).build());
    RecordKey first = RecordKey.of(scope, "first");
    assertThat(store.claim(first, "o1", null, LONG).isAcquired()).isTrue();
    assertThat(store.claim(first, "o2", null, LONG).isAcquired()).isFalse();
    dropKeys.set(true);
    RecordKey key = RecordKey.of(scope, "k");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    for (String owner : List.of("o2", "o3")) {
      ClaimResult repeat = store.claim(key, owner, null, LONG);
      assertThat(repeat.isAcquired()).as("a repeat by " + owner).isFalse();
      assertThat(repeat.existing().ownerToken()).isEqualTo("o1");
    }
  }

  /**
   * A data source whose first connection counts affected rows and whose later ones count found rows
   * (a routing data source over two differently configured pools): a taken key is refused on both.
   * When a first check decided the kind of connection for the store's life, found-rows connections
   * got the plain insert and a duplicate's 1 row read as "inserted".
   */
  @Test
  void connectionsThatDifferInTheirAffectedRowsSettingStillClaimExactlyOnce() throws Exception {
    store();
    DataSource affected = TestDatabases.pool(url("useAffectedRows=true"), 2);
    DataSource found = TestDatabases.pool(url("useAffectedRows=false"), 2);
    AtomicBoolean first = new AtomicBoolean(true);
    DataSource routing =
        (DataSource)
            Proxy.newProxyInstance(
                MariaDbStoreTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) ->
                    invoke(first.getAndSet(false) ? affected : found, method, args));
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(routing).dialect(JdbcDialect.MYSQL).build());
    RecordKey key = RecordKey.of(scope, "k");
    assertThat(store.claim(RecordKey.of(scope, "first"), "o1", null, LONG).isAcquired()).isTrue();
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    ClaimResult repeat = store.claim(key, "o2", null, LONG);
    assertThat(repeat.isAcquired()).as("a repeat on a found-rows connection").isFalse();
    assertThat(repeat.existing().ownerToken()).isEqualTo("o1");
  }

  /**
   * {@code dataSource} that adds every statement it prepares to {@code prepared} and, when {@code
   * dropKeys}, returns an empty generated-key result set.
   */
  private static DataSource proxied(
      DataSource dataSource, AtomicBoolean dropKeys, List<String> prepared) {
    return (DataSource)
        Proxy.newProxyInstance(
            MariaDbStoreTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(dataSource, method, args);
              return result instanceof Connection c
                  ? wrap(Connection.class, c, dropKeys, prepared)
                  : result;
            });
  }

  private static Object wrap(
      Class<?> type, Object target, AtomicBoolean dropKeys, List<String> prepared) {
    return Proxy.newProxyInstance(
        MariaDbStoreTest.class.getClassLoader(),
        new Class<?>[] {type},
        (proxy, method, args) -> {
          if (dropKeys.get() && method.getName().equals("getGeneratedKeys")) {
            return Proxy.newProxyInstance(
                MariaDbStoreTest.class.getClassLoader(),
                new Class<?>[] {ResultSet.class},
                (p, m, a) ->
                    m.getName().equals("next") || m.getName().equals("isClosed") ? false : null);
          }
          if (method.getName().equals("prepareStatement")) {
            synchronized (prepared) {
              prepared.add((String) args[0]);
            }
          }
          Object result = invoke(target, method, args);
          return result instanceof PreparedStatement ps
              ? wrap(PreparedStatement.class, ps, dropKeys, prepared)
              : result;
        });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * A server message that quotes a bound value (here a trigger's, in the form of MariaDB's own
   * "Duplicate entry '...'"), on a connection whose driver appends the query and its parameters to
   * every message ({@code dumpQueriesOnException=true}): the key shows nowhere in what the store
   * throws.
   */
  @Test
  void aServerMessageQuotingTheKeyNeverShowsIt() throws Exception {
    String table = "idem_detail_test";
    track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    execute("DROP TRIGGER IF EXISTS idem_detail_test_guard");
    execute(
        "CREATE TRIGGER idem_detail_test_guard BEFORE UPDATE ON "
            + table
            + " FOR EACH ROW BEGIN DECLARE m VARCHAR(500); SET m = CONCAT('Duplicate entry ''',"
            + " CAST(NEW.idem_key AS CHAR), ''' refused'); SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT"
            + " = m; END");
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(TestDatabases.pool(url("dumpQueriesOnException=true"), 2))
                .table(table)
                .build());
    String secret = secretKey();
    RecordKey key = RecordKey.of(scope, secret);
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    Throwable thrown = catchThrowable(() -> store.complete(key, "o1", new byte[] {1}, LONG));
    assertThat(thrown)
        .isInstanceOf(JdbcStoreException.class)
        .hasMessageContaining("[45000]")
        .hasMessageContaining("Duplicate entry");
    assertThat(((SQLException) thrown.getCause()).getSQLState()).isEqualTo("45000");
    assertCarriesNo(thrown, secret);
  }

  /**
   * An outcome larger than the server's {@code max_allowed_packet} (16 MiB by default on MariaDB)
   * fails at once as what it is: the caller gets its result, the key is released (a repeat runs
   * again at once instead of finding the claim held by completions retried until the lease ends),
   * and an ERROR names the size and the setting to raise.
   */
  @Test
  void anOutcomeLargerThanMaxAllowedPacketReleasesTheKeyAtOnce() throws Exception {
    // The codec refuses outcomes over 16 MiB itself, so the server's limit is lowered below that
    // for this test;
    // connections opened after SET GLOBAL (a pool of their own) see the lowered value.
    long original = maxAllowedPacket(dataSource());
    long limit = 4L << 20;
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("SET GLOBAL max_allowed_packet = " + limit);
    }
    try {
      DataSource lowered =
          TestDatabases.pool(url("connectTimeout=" + (30_000 + new Random().nextInt(1_000))), 2);
      assertThat(maxAllowedPacket(lowered))
          .as("max_allowed_packet of the new connections")
          .isEqualTo(limit);
      JdbcIdempotencyStore store =
          track(JdbcIdempotencyStore.builder(lowered).createTable(true).build());
      byte[] result = new byte[(int) limit + (1 << 20)];
      new Random(7).nextBytes(result);
      List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
      Idempotency idempotency =
          Idempotency.create(
              IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder(scope).lease(Duration.ofSeconds(30)).build();
      AtomicInteger runs = new AtomicInteger();
      String logged =
          standardErrorOf(
              () -> {
                assertThat(
                        idempotency.execute(
                            policy,
                            "big",
                            () -> {
                              runs.incrementAndGet();
                              return result;
                            }))
                    .isSameAs(result);
                return null;
              });
      assertThat(logged)
          .contains("ERROR")
          .contains("max_allowed_packet")
          .contains(limit + " bytes");
      assertThat(events)
          .filteredOn(e -> e.type() == IdempotencyEvent.Type.STORE_ERROR)
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.error())
                      .isInstanceOf(OutcomeNotRecordedException.class)
                      .hasMessageContaining("max_allowed_packet"));
      assertThat(store.read(RecordKey.of(scope, "big"))).as("released").isEmpty();
      assertTimeoutPreemptively(
          Duration.ofSeconds(20),
          () ->
              idempotency.execute(
                  policy,
                  "big",
                  () -> {
                    runs.incrementAndGet();
                    return new byte[] {1};
                  }));
      assertThat(runs).hasValue(2);
      assertThat(store.read(RecordKey.of(scope, "big")).orElseThrow().isCompleted()).isTrue();
    } finally {
      try (Connection c = dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("SET GLOBAL max_allowed_packet = " + original);
      }
    }
  }

  private static long maxAllowedPacket(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT @@max_allowed_packet");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * InnoDB would wait 50 s for the row lock; the store's timeout ends the call after about one
   * second.
   */
  @Test
  void theTimeoutBoundsAStatementBlockedByARowLock() throws Exception {
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .queryTimeout(Duration.ofSeconds(1))
                .build());
    RecordKey key = RecordKey.of(scope, "locked");
    store.claim(key, "o1", null, LONG);
    String url = url();
    try (Connection locker = DriverManager.getConnection(url)) {
      locker.setAutoCommit(false);
      try (PreparedStatement ps =
          locker.prepareStatement(
              "SELECT 1 FROM idempotency_record WHERE scope_id = ? AND idem_key = ? FOR UPDATE")) {
        ps.setLong(1, key.scopeId());
        ps.setBytes(2, key.key().getBytes(StandardCharsets.UTF_8));
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).isTrue();
        }
      }
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.renew(key, "o1", LONG))
          .isInstanceOf(JdbcStoreException.class)
          .hasMessageContaining("renew");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
      locker.rollback();
    }
    assertThat(store.renew(key, "o1", LONG)).isTrue();
  }

  /**
   * The statements that change a record found by its key (complete, release, renew, take over,
   * delete) leave the expiry index out of the optimizer's range analysis: {@code expires_at > now}
   * there would make MariaDB estimate that open range in the index on every call. The control
   * statement shows the trace would tell.
   */
  @Test
  void keyedStatementsDoNotMakeTheOptimizerEstimateTheExpiryIndex() throws Exception {
    JdbcIdempotencyStore store = store();
    for (int i = 0; i < 50; i++) {
      store.claim(RecordKey.of(scope, "row-" + i), "o1", null, LONG);
    }
    String url = url();
    SqlStatements sql = SqlStatements.of(JdbcDialect.MARIADB, JdbcIdempotencyStore.DEFAULT_TABLE);
    long scopeId = RecordKey.scopeIdOf(scope);
    byte[] keyBytes = "row-7".getBytes(StandardCharsets.UTF_8);
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      try (PreparedStatement on =
          c.prepareStatement("SET SESSION optimizer_trace = 'enabled=on'")) {
        on.execute();
      }
      String control =
          "UPDATE idempotency_record SET expires_at = expires_at WHERE scope_id = ? AND idem_key ="
              + " ? AND expires_at > UTC_TIMESTAMP(6)";
      assertThat(
              estimatesExpiryIndex(
                  c,
                  control,
                  ps -> {
                    ps.setLong(1, scopeId);
                    ps.setBytes(2, keyBytes);
                  }))
          .as("control: a plain expiry comparison")
          .isTrue();
      assertThat(
              estimatesExpiryIndex(
                  c,
                  sql.complete().text(),
                  ps -> {
                    ps.setBytes(1, new byte[] {1});
                    ps.setLong(2, 60_000_000L);
                    ps.setLong(3, scopeId);
                    ps.setBytes(4, keyBytes);
                    ps.setString(5, "o1");
                  }))
          .as("complete")
          .isFalse();
      assertThat(
              estimatesExpiryIndex(
                  c,
                  sql.renew().text(),
                  ps -> {
                    ps.setLong(1, 60_000_000L);
                    ps.setLong(2, scopeId);
                    ps.setBytes(3, keyBytes);
                    ps.setString(4, "o1");
                  }))
          .as("renew")
          .isFalse();
      assertThat(
              estimatesExpiryIndex(
                  c,
                  sql.release().text(),
                  ps -> {
                    ps.setLong(1, scopeId);
                    ps.setBytes(2, keyBytes);
                    ps.setString(3, "o1");
                  }))
          .as("release")
          .isFalse();
      assertThat(
              estimatesExpiryIndex(
                  c,
                  sql.takeOver().text(),
                  ps -> {
                    ps.setString(1, "o2");
                    ps.setString(2, null);
                    ps.setLong(3, 60_000_000L);
                    ps.setLong(4, scopeId);
                    ps.setBytes(5, keyBytes);
                    ps.setString(6, "o1");
                  }))
          .as("take over")
          .isFalse();
      assertThat(
              estimatesExpiryIndex(
                  c,
                  sql.delete().text(),
                  ps -> {
                    ps.setLong(1, scopeId);
                    ps.setBytes(2, keyBytes);
                  }))
          .as("delete")
          .isFalse();
      c.rollback();
    }
  }

  private interface Binder {
    void bind(PreparedStatement ps) throws java.sql.SQLException;
  }

  /**
   * Runs {@code statement} and tells whether its optimizer trace estimated a range of the expiry
   * index.
   */
  private static boolean estimatesExpiryIndex(Connection c, String statement, Binder binder)
      throws Exception {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      binder.bind(ps);
      ps.execute();
    }
    String trace;
    try (PreparedStatement ps =
            c.prepareStatement("SELECT TRACE FROM information_schema.OPTIMIZER_TRACE");
        ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).as("an optimizer trace for " + statement).isTrue();
      trace = rs.getString(1);
    }
    int alternatives = trace.indexOf("\"range_scan_alternatives\"");
    assertThat(alternatives).as("range analysis in the trace of " + statement).isNotNegative();
    String analysed = trace.substring(alternatives);
    assertThat(analysed)
        .as("the primary key among the ranges analysed for " + statement)
        .contains("\"PRIMARY\"");
    return analysed.contains("\"idempotency_record_expires_at_idx\"");
  }
}
