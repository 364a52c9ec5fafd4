package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.jdbc.internal.ClaimOrder;
import dev.idempotent.jdbc.internal.ScopeRegistry;
import dev.idempotent.jdbc.internal.SqlAccessor;
import dev.idempotent.jdbc.internal.SqlStatements;
import dev.idempotent.jdbc.internal.TableFormat;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store's tables on every database: the format version, the 64-bit scope ids and the scope
 * registry (collisions, refresh, purge of scopes without records), and how many statements the
 * fresh-key and replay paths take.
 */
abstract class LayoutChecks {
  static final Duration LONG = Duration.ofMinutes(10);

  /** Two scopes whose SHA-256 digests share their first 32 bits (and differ in the next 32). */
  static final String SCOPE_A = "collide-14550";

  static final String SCOPE_B = "collide-37896";

  private final List<JdbcIdempotencyStore> stores = new ArrayList<>();
  String scope;

  abstract DataSource dataSource();

  abstract JdbcDialect expectedDialect();

  /** The statements of a claim that finds a completed row: one where the insert returns it. */
  /** Statements of a repeat that inserts first: 1 where the insert returns the key's row. */
  abstract int statementsOfARepeatInsertedFirst();

  @BeforeEach
  void newScope() {
    scope = "layout-" + UUID.randomUUID();
  }

  @AfterEach
  void closeStores() {
    stores.forEach(JdbcIdempotencyStore::close);
  }

  JdbcIdempotencyStore track(JdbcIdempotencyStore store) {
    stores.add(store);
    return store;
  }

  /** A store on {@code table}, its three tables dropped and created afresh by the shipped DDL. */
  JdbcIdempotencyStore freshStore(String table) throws SQLException {
    for (String t : List.of(table, table + "_scope", table + "_meta")) {
      execute("DROP TABLE IF EXISTS " + t);
    }
    return track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
  }

  @Test
  void theShippedTablesCarryThisFormatVersion() throws Exception {
    freshStore("idem_format_test");
    assertThat(formatVersions("idem_format_test")).containsExactly(TableFormat.VERSION);
    track(
        JdbcIdempotencyStore.builder(dataSource())
            .table("idem_format_test")
            .createTable(true)
            .build());
    assertThat(formatVersions("idem_format_test"))
        .as("created again")
        .containsExactly(TableFormat.VERSION);
  }

  /**
   * Tables of another format version are refused with a message naming both versions, when the
   * store is built and on the first call of a store built before: not even a fail-open call runs
   * the method, the purge deletes nothing, and {@code createTable(true)} leaves the version as it
   * is. Once the version is this store's again, the refused store works.
   */
  @Test
  void tablesOfAnotherFormatVersionAreRefusedNamingBothVersions() throws Exception {
    String table = "idem_other_format_test";
    freshStore(table);
    JdbcIdempotencyStore before =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .table(table)
                .dialect(expectedDialect())
                .build());
    execute("UPDATE " + table + "_meta SET format_version = 2");
    String[] expected = {
      "table " + table + " holds idempotency records in format version 2",
      table + "_meta",
      "reads format version 1 only"
    };
    assertThatThrownBy(() -> JdbcIdempotencyStore.builder(dataSource()).table(table).build())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    assertThatThrownBy(
            () -> JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    assertThat(formatVersions(table)).as("not stamped by createTable").containsExactly(2);
    RecordKey key = RecordKey.of(scope, "k");
    assertThatThrownBy(() -> before.claim(key, "o1", null, LONG))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    AtomicInteger runs = new AtomicInteger();
    Idempotency failOpen =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(before)
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .build());
    IdempotencyPolicy policy = IdempotencyPolicy.builder(scope).resultType(Integer.class).build();
    assertThatThrownBy(() -> failOpen.call(policy, "k", runs::incrementAndGet))
        .isInstanceOf(IdempotencyConfigurationException.class);
    assertThat(runs).as("not run, though fail-open").hasValue(0);
    assertThatThrownBy(() -> before.purgeExpired(10))
        .as("nor purged")
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    assertThat(count(table)).isZero();

    execute("UPDATE " + table + "_meta SET format_version = 1");
    assertThat(before.claim(key, "o1", null, LONG).isAcquired()).isTrue();
  }

  /**
   * A record table without its format version (as one created before the version existed) is
   * refused, naming what is missing and what to do, and {@code createTable(true)} does not stamp
   * it.
   */
  @Test
  void aTableWithoutTheFormatVersionIsRefusedAndNotStamped() throws Exception {
    String table = "idem_unmarked_test";
    freshStore(table);
    execute("DROP TABLE " + table + "_meta");
    String[] expected = {
      "table " + table + " has no " + table + "_meta",
      expectedDialect().schemaResource(),
      "Drop " + table + " and " + table + "_scope"
    };
    assertThatThrownBy(() -> JdbcIdempotencyStore.builder(dataSource()).table(table).build())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    assertThatThrownBy(
            () -> JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    JdbcIdempotencyStore unchecked =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .table(table)
                .dialect(expectedDialect())
                .build());
    assertThatThrownBy(() -> unchecked.read(RecordKey.of(scope, "k")))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContainingAll(expected);
    assertThatThrownBy(() -> count(table + "_meta"))
        .as("still no meta table")
        .isInstanceOf(SQLException.class);
  }

  /**
   * Scope ids are the first 64 bits of the scope's SHA-256: two scopes that share their first 32
   * bits keep their records apart, each under its own id, each text once in the scope table.
   */
  @Test
  void scopeIdsAreTheFirstSixtyFourBitsOfTheSha256() throws Exception {
    assertThat(sha256Prefix(SCOPE_A, 4)).isEqualTo(sha256Prefix(SCOPE_B, 4));
    String table = "idem_scope_id_test";
    JdbcIdempotencyStore store = freshStore(table);
    RecordKey a = RecordKey.of(SCOPE_A, "order-1");
    RecordKey b = RecordKey.of(SCOPE_B, "order-1");
    assertThat(store.claim(a, "oa", null, LONG).isAcquired()).isTrue();
    assertThat(store.claim(b, "ob", null, LONG).isAcquired()).as("the other scope's key").isTrue();
    assertThat(store.complete(a, "oa", new byte[] {1}, LONG)).isTrue();
    assertThat(store.read(b).orElseThrow().ownerToken()).isEqualTo("ob");
    List<Long> ids = new ArrayList<>();
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT scope_id FROM " + table + " ORDER BY scope_id")) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    assertThat(ids)
        .containsExactlyInAnyOrder(sha256Prefix(SCOPE_A, 8), sha256Prefix(SCOPE_B, 8))
        .containsExactlyInAnyOrder(a.scopeId(), b.scopeId());
    assertThat(scopeText(table, a.scopeId())).isEqualTo(SCOPE_A);
    assertThat(scopeText(table, b.scopeId())).isEqualTo(SCOPE_B);
    assertThat(count(table + "_scope")).isEqualTo(2);
  }

  /**
   * Another scope's text planted under a scope's id (as a colliding scope would have written it):
   * the claim, read and delete of the scope are refused with a configuration error naming both
   * scopes, from this store and from a new one, nothing is written, and not even a fail-open call
   * runs the method.
   */
  @Test
  void aScopeWhoseIdHoldsAnotherScopesTextIsRefusedNamingBoth() throws Exception {
    String table = "idem_collision_test";
    JdbcIdempotencyStore store = freshStore(table);
    String other = scope + "-other";
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + "_scope (scope_id, scope, refreshed_at) VALUES (?, ?, CURRENT_TIMESTAMP)")) {
      ps.setLong(1, RecordKey.scopeIdOf(scope));
      bindText(ps, 2, other);
      ps.executeUpdate();
    }
    RecordKey key = RecordKey.of(scope, "k");
    String[] expected = {
      "scope \"" + scope + "\"",
      "scope \"" + other + "\"",
      table + "_scope",
      String.valueOf(key.scopeId()),
      "Rename one of the two scopes"
    };
    for (JdbcIdempotencyStore s :
        List.of(store, track(JdbcIdempotencyStore.builder(dataSource()).table(table).build()))) {
      assertThatThrownBy(() -> s.claim(key, "o", null, LONG))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContainingAll(expected);
      assertThatThrownBy(() -> s.read(key))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContainingAll(expected);
      assertThatThrownBy(() -> s.delete(key))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContainingAll(expected);
    }
    AtomicInteger runs = new AtomicInteger();
    Idempotency failOpen =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .build());
    IdempotencyPolicy policy = IdempotencyPolicy.builder(scope).resultType(Integer.class).build();
    assertThatThrownBy(() -> failOpen.call(policy, "k", runs::incrementAndGet))
        .isInstanceOf(IdempotencyConfigurationException.class);
    assertThat(runs).hasValue(0);
    assertThat(count(table)).as("no record written").isZero();
    assertThat(scopeText(table, key.scopeId()))
        .as("the other scope's row, unchanged")
        .isEqualTo(other);
  }

  /**
   * 1,500 distinct scopes leave no rows once their records are gone and a day has passed (the scope
   * rows aged by hand): the purge deletes the scope rows without records that have gone unrefreshed
   * for a day, and keeps a scope row with a live record however old, and one without records
   * refreshed within the day.
   */
  @Test
  void fifteenHundredScopesLeaveNoRowsOnceTheirRecordsAreGone() throws Exception {
    String table = "idem_scope_purge_test";
    JdbcIdempotencyStore store = freshStore(table);
    for (int i = 0; i < 1500; i++) {
      RecordKey key = RecordKey.of(scope + "-" + i, "k");
      assertThat(store.claim(key, "o", null, Duration.ofNanos(1000)).isAcquired()).isTrue();
    }
    RecordKey live = RecordKey.of(scope + "-live", "k");
    store.claim(live, "o", null, LONG);
    RecordKey recent = RecordKey.of(scope + "-recent", "k");
    store.claim(recent, "o", null, LONG);
    store.release(recent, "o");
    Thread.sleep(20);
    assertThat(count(table + "_scope")).isEqualTo(1502);

    assertThat(store.purgeExpired(1000)).as("records purged").isEqualTo(1500);
    assertThat(count(table)).isOne();
    assertThat(count(table + "_scope")).as("refreshed within the day: kept").isEqualTo(1502);

    ageScopes(table, "scope_id <> " + recent.scopeId());
    assertThat(store.purgeScopes(1000)).isEqualTo(1000);
    assertThat(store.purgeExpired(1000)).as("no records left to purge").isZero();
    assertThat(count(table + "_scope"))
        .as("the scope with a live record, and the one refreshed within the day")
        .isEqualTo(2);
    assertThat(scopeText(table, live.scopeId())).isEqualTo(live.scope());
    assertThat(scopeText(table, recent.scopeId())).isEqualTo(recent.scope());
    assertThat(store.read(live)).isPresent();
  }

  /**
   * A store refreshes the row of a scope it writes records of when its last registration is an hour
   * old or more, and not before; a scope row purged meanwhile is written again before the store
   * writes a record of the scope.
   */
  @Test
  void aStoreRefreshesAScopeRowHourlyAndWritesAPurgedOneAgain() throws Exception {
    String table = "idem_scope_refresh_test";
    freshStore(table);
    AtomicLong nanos = new AtomicLong();
    ScopeRegistry registry =
        new ScopeRegistry(new SqlAccessor(SqlStatements.of(expectedDialect(), table)), nanos::get);
    RecordKey key = RecordKey.of(scope, "k");
    try (Connection c = dataSource().getConnection()) {
      registry.beforeWrite(c, 5, key);
      assertThat(scopeText(table, key.scopeId())).isEqualTo(scope);
      ageScopes(table, "1 = 1");
      nanos.addAndGet(TimeUnit.MINUTES.toNanos(59));
      registry.beforeWrite(c, 5, key);
      assertThat(scopeAgeHours(table, key.scopeId()))
          .as("not refreshed within the hour")
          .isGreaterThan(24);
      nanos.addAndGet(TimeUnit.MINUTES.toNanos(1));
      registry.beforeWrite(c, 5, key);
      assertThat(scopeAgeHours(table, key.scopeId())).as("refreshed after the hour").isLessThan(1);

      execute("DELETE FROM " + table + "_scope");
      nanos.addAndGet(TimeUnit.HOURS.toNanos(1));
      registry.beforeWrite(c, 5, key);
      assertThat(scopeText(table, key.scopeId())).as("written again").isEqualTo(scope);
    }
  }

  /**
   * The fresh-key path is one statement a call (the claim's insert, then the completion's update).
   * A repeat in a scope of new keys is the insert and, where it does not return the row that holds
   * the key (all but MariaDB), the read. A scope of repeats reads first, so a repeat is one {@code
   * SELECT}, and a fresh key there is the read and then the insert; another scope keeps its own
   * order, and a pinned order holds whatever the claims find.
   */
  @Test
  void aFreshKeyAndARepeatTakeOneStatementEachInTheirOwnScopes() throws Exception {
    freshStore("idem_statements_test");
    List<String> prepared = new ArrayList<>();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(counting(dataSource(), prepared))
                .table("idem_statements_test")
                .dialect(expectedDialect())
                .build());
    assertThat(store.claim(RecordKey.of(scope, "first"), "o0", null, LONG).isAcquired()).isTrue();
    assertThat(prepared)
        .as("the first call: the format check and the scope's registration")
        .anyMatch(s -> s.contains("_meta"))
        .anyMatch(s -> s.contains("_scope"));
    for (int i = 0; i < 10; i++) {
      RecordKey key = RecordKey.of(scope, "k" + i);
      prepared.clear();
      assertThat(store.claim(key, "o" + i, null, LONG).isAcquired()).isTrue();
      assertThat(verbs(prepared)).as("a fresh-key claim").containsExactly("INSERT");
      prepared.clear();
      assertThat(store.complete(key, "o" + i, new byte[] {(byte) i}, LONG)).isTrue();
      assertThat(verbs(prepared)).as("a completion").containsExactly("UPDATE");
    }
    prepared.clear();
    ClaimResult repeat = store.claim(RecordKey.of(scope, "k0"), "r", null, LONG);
    assertThat(repeat.existing().outcome()).containsExactly(0);
    assertThat(verbs(prepared))
        .as("a repeat in a scope of new keys")
        .startsWith("INSERT")
        .hasSize(statementsOfARepeatInsertedFirst());

    for (int i = 0; i < 20; i++) {
      assertThat(store.claim(RecordKey.of(scope, "k" + i % 10), "r", null, LONG).existing())
          .isNotNull();
    }
    prepared.clear();
    repeat = store.claim(RecordKey.of(scope, "k3"), "r", null, LONG);
    assertThat(repeat.existing().outcome()).containsExactly(3);
    assertThat(verbs(prepared)).as("a repeat in a scope of repeats").containsExactly("SELECT");
    prepared.clear();
    assertThat(store.claim(RecordKey.of(scope, "k10"), "o10", null, LONG).isAcquired()).isTrue();
    assertThat(verbs(prepared))
        .as("a fresh key in a scope of repeats")
        .containsExactly("SELECT", "INSERT");

    String other = scope + "-other";
    for (int i = 0; ClaimOrder.slot(scopeId(other)) == ClaimOrder.slot(scopeId(scope)); i++) {
      other = scope + "-other-" + i; // a scope with a counter of its own
    }
    assertThat(store.claim(RecordKey.of(other, "k"), "o", null, LONG).isAcquired()).isTrue();
    prepared.clear();
    assertThat(store.claim(RecordKey.of(other, "k2"), "o2", null, LONG).isAcquired()).isTrue();
    assertThat(verbs(prepared)).as("another scope's own order").containsExactly("INSERT");

    JdbcIdempotencyStore pinned =
        track(
            JdbcIdempotencyStore.builder(counting(dataSource(), prepared))
                .table("idem_statements_test")
                .dialect(expectedDialect())
                .claimOrder(ClaimOrder.INSERT_FIRST)
                .build());
    for (int i = 0; i < 20; i++) {
      assertThat(pinned.claim(RecordKey.of(scope, "k" + i % 10), "p", null, LONG).existing())
          .isNotNull();
    }
    prepared.clear();
    assertThat(pinned.claim(RecordKey.of(scope, "k5"), "p", null, LONG).existing()).isNotNull();
    assertThat(verbs(prepared)).as("pinned to the insert").startsWith("INSERT");
  }

  /** The first word of each statement. */
  private static List<String> verbs(List<String> statements) {
    synchronized (statements) {
      return statements.stream().map(s -> s.strip().split(" ", 2)[0]).toList();
    }
  }

  private static long scopeId(String scope) {
    return RecordKey.of(scope, "k").scopeId();
  }

  /** {@code dataSource} whose connections add every statement they prepare to {@code prepared}. */
  static DataSource counting(DataSource dataSource, List<String> prepared) {
    return WatchedConnections.of(
        dataSource,
        c -> {},
        sql -> {
          synchronized (prepared) {
            prepared.add(sql);
          }
        });
  }

  /** Moves the {@code refreshed_at} of the scope rows that match {@code where} two days back. */
  void ageScopes(String table, String where) throws SQLException {
    String twoDaysBack =
        switch (expectedDialect()) {
          case POSTGRESQL -> "refreshed_at - INTERVAL '2 days'";
          case MARIADB, MYSQL -> "TIMESTAMPADD(DAY, -2, refreshed_at)";
          case H2 -> "DATEADD(DAY, -2, refreshed_at)";
        };
    execute("UPDATE " + table + "_scope SET refreshed_at = " + twoDaysBack + " WHERE " + where);
  }

  /** Hours since the scope row of {@code id} was refreshed, on the database clock. */
  double scopeAgeHours(String table, long id) throws SQLException {
    String micros =
        switch (expectedDialect()) {
          case POSTGRESQL -> "EXTRACT(EPOCH FROM (statement_timestamp() - refreshed_at)) * 1000000";
          case MARIADB, MYSQL -> "TIMESTAMPDIFF(MICROSECOND, refreshed_at, UTC_TIMESTAMP(6))";
          case H2 -> "DATEDIFF(MICROSECOND, refreshed_at, CURRENT_TIMESTAMP(6))";
        };
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT " + micros + " FROM " + table + "_scope WHERE scope_id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the scope row").isTrue();
        return rs.getDouble(1) / 3_600_000_000.0;
      }
    }
  }

  /** The text of the scope row of {@code id}, or {@code null}. */
  String scopeText(String table, long id) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT scope FROM " + table + "_scope WHERE scope_id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return isMySqlFamily()
            ? new String(rs.getBytes(1), StandardCharsets.UTF_8)
            : rs.getString(1);
      }
    }
  }

  List<Integer> formatVersions(String table) throws SQLException {
    List<Integer> versions = new ArrayList<>();
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT format_version FROM " + table + "_meta")) {
      while (rs.next()) {
        versions.add(rs.getInt(1));
      }
    }
    return versions;
  }

  boolean isMySqlFamily() {
    return expectedDialect() == JdbcDialect.MARIADB || expectedDialect() == JdbcDialect.MYSQL;
  }

  void bindText(PreparedStatement ps, int index, String value) throws SQLException {
    if (isMySqlFamily()) {
      ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
    } else {
      ps.setString(index, value);
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  int count(String table) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The first {@code bytes} (4 or 8) bytes of the SHA-256 of {@code text}'s UTF-8, signed. */
  static long sha256Prefix(String text, int bytes) throws Exception {
    ByteBuffer sha =
        ByteBuffer.wrap(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    return bytes == Long.BYTES ? sha.getLong() : sha.getInt();
  }
}
