package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.jdbc.internal.ClaimOrder;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Checks of the JDBC store beyond the contract kit, run on every database. */
abstract class JdbcStoreChecks {
  static final Duration LONG = Duration.ofMinutes(10);
  static final String BUSINESS_TABLE = "idem_test_business";

  private final List<JdbcIdempotencyStore> stores = new ArrayList<>();
  String scope;

  abstract DataSource dataSource();

  abstract JdbcDialect expectedDialect();

  @BeforeEach
  void newScope() {
    scope = "checks-" + UUID.randomUUID();
  }

  @AfterEach
  void closeStores() {
    stores.forEach(JdbcIdempotencyStore::close);
  }

  JdbcIdempotencyStore track(JdbcIdempotencyStore store) {
    stores.add(store);
    return store;
  }

  JdbcIdempotencyStore store() {
    return track(JdbcIdempotencyStore.builder(dataSource()).createTable(true).build());
  }

  @Test
  void detectsTheDialect() {
    assertThat(store().dialect()).isEqualTo(expectedDialect());
  }

  @Test
  void tenMebibyteOutcomeRoundTrips() {
    JdbcIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "big");
    byte[] outcome = new byte[10 * 1024 * 1024];
    new Random(42).nextBytes(outcome);
    assertThat(store.claim(key, "o1", "fp", LONG).isAcquired()).isTrue();
    assertThat(store.complete(key, "o1", outcome, LONG)).isTrue();
    IdempotencyRecord record = store.read(key).orElseThrow();
    assertThat(record.outcome()).isEqualTo(outcome);
    assertThat(store.claim(key, "o2", "fp", LONG).existing().outcome()).isEqualTo(outcome);
  }

  @Test
  void thousandCharacterKeysAreFittedAndStayDistinct() {
    JdbcIdempotencyStore store = store();
    String longScope = scope + "-" + "s".repeat(1000);
    RecordKey a = RecordKey.of(longScope, "k".repeat(999) + "a").fittedTo(store.maxKeyLength());
    RecordKey b = RecordKey.of(longScope, "k".repeat(999) + "b").fittedTo(store.maxKeyLength());
    RecordKey exact =
        RecordKey.of(scope, "x".repeat(store.maxKeyLength())).fittedTo(store.maxKeyLength());
    assertThat(exact.key()).hasSize(255);
    assertThat(a.scope().length()).isLessThanOrEqualTo(255);
    assertThat(store.claim(a, "oa", null, LONG).isAcquired()).isTrue();
    assertThat(store.claim(b, "ob", null, LONG).isAcquired()).isTrue();
    assertThat(store.claim(exact, "ox", null, LONG).isAcquired()).isTrue();
    assertThat(store.read(a).orElseThrow().ownerToken()).isEqualTo("oa");
    assertThat(store.read(b).orElseThrow().ownerToken()).isEqualTo("ob");
    assertThat(store.read(exact).orElseThrow().ownerToken()).isEqualTo("ox");
  }

  @Test
  void unicodeCaseAndTrailingSpacesKeepKeysDistinct() {
    JdbcIdempotencyStore store = store();
    String[] keys = {
      "zahlung-ä",
      "zahlung-a",
      "Zahlung-a",
      "付款-1",
      "💳-𝔘",
      "k",
      "k ",
      "e\u0301",
      "\u00e9",
      "\u00e9".repeat(255),
      "😀".repeat(127)
    };
    for (int i = 0; i < keys.length; i++) {
      RecordKey key = RecordKey.of(scope + "-ü", keys[i]).fittedTo(store.maxKeyLength());
      assertThat(store.claim(key, "owner-" + i, null, LONG).isAcquired()).as(keys[i]).isTrue();
    }
    for (int i = 0; i < keys.length; i++) {
      RecordKey key = RecordKey.of(scope + "-ü", keys[i]).fittedTo(store.maxKeyLength());
      assertThat(store.read(key).orElseThrow().ownerToken()).as(keys[i]).isEqualTo("owner-" + i);
    }
  }

  @Test
  void expiresInIsMeasuredOnTheDatabaseClock() {
    JdbcIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "clock");
    store.claim(key, "o1", null, Duration.ofSeconds(60));
    assertThat(store.read(key).orElseThrow().expiresIn())
        .isBetween(Duration.ofSeconds(55), Duration.ofSeconds(60));
    store.complete(key, "o1", new byte[] {1}, Duration.ofHours(24));
    assertThat(store.read(key).orElseThrow().expiresIn())
        .isBetween(Duration.ofHours(23), Duration.ofHours(24));
  }

  @Test
  void takeoverOfExpiredClaimAndReuseOfExpiredRecordAreTold() throws InterruptedException {
    JdbcIdempotencyStore store = store();
    RecordKey held = RecordKey.of(scope, "held");
    RecordKey done = RecordKey.of(scope, "done");
    assertThat(store.claim(held, "o1", null, Duration.ofMillis(200)).isTakeover()).isFalse();
    assertThat(store.claim(done, "o1", null, LONG).isAcquired()).isTrue();
    assertThat(store.complete(done, "o1", new byte[] {7}, Duration.ofMillis(200))).isTrue();
    Thread.sleep(300);
    ClaimResult takeover = store.claim(held, "o2", "fp2", LONG);
    assertThat(takeover.isAcquired()).isTrue();
    assertThat(takeover.isTakeover()).isTrue();
    ClaimResult reuse = store.claim(done, "o2", "fp2", LONG);
    assertThat(reuse.isAcquired()).isTrue();
    assertThat(reuse.isTakeover()).isFalse();
    IdempotencyRecord reused = store.read(done).orElseThrow();
    assertThat(reused.isCompleted()).isFalse();
    assertThat(reused.outcome()).isNull();
    assertThat(reused.fingerprint()).isEqualTo("fp2");
    assertThat(store.complete(held, "o1", new byte[] {1}, LONG)).as("old owner fenced").isFalse();
  }

  /**
   * A completed row keeps no owner token (the column is NULL: about 20 bytes less per record), and
   * when it has expired, of many callers claiming it at once exactly one acquires it.
   */
  @Test
  void aCompletedRowKeepsNoOwnerAndIsClaimedAgainByOneCaller() throws Exception {
    JdbcIdempotencyStore store = store();
    RecordKey key = RecordKey.of(scope, "done");
    assertThat(store.claim(key, "first-owner", null, LONG).isAcquired()).isTrue();
    assertThat(store.complete(key, "first-owner", new byte[] {7}, Duration.ofMillis(300))).isTrue();
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT owner FROM "
                    + JdbcIdempotencyStore.DEFAULT_TABLE
                    + " WHERE scope_id = ?")) {
      ps.setLong(1, RecordKey.scopeIdOf(scope));
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).as("owner of a completed row").isNull();
      }
    }
    IdempotencyRecord completed = store.read(key).orElseThrow();
    assertThat(completed.isCompleted()).isTrue();
    assertThat(completed.ownerToken()).isNull();
    assertThat(completed.outcome()).containsExactly(7);
    assertThat(store.complete(key, "first-owner", new byte[] {8}, LONG))
        .as("a repeat changes nothing")
        .isFalse();
    Thread.sleep(400);
    int callers = 8;
    List<Callable<Boolean>> claims = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      String owner = "next-" + i;
      claims.add(() -> store.claim(key, owner, null, LONG).isAcquired());
    }
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      int acquired = 0;
      for (Future<Boolean> f : pool.invokeAll(claims)) {
        acquired += f.get() ? 1 : 0;
      }
      assertThat(acquired).as("callers that acquired the expired completed record").isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    IdempotencyRecord claimed = store.read(key).orElseThrow();
    assertThat(claimed.isCompleted()).isFalse();
    assertThat(claimed.ownerToken()).startsWith("next-");
  }

  /**
   * Live rows this store never writes (changed by hand or by another program): every call of the
   * key fails with an outcome exception naming what the row is, not even a fail-open call runs the
   * method, and the row is left as it was; once such a row has expired, a claim takes it over.
   */
  @Test
  void aLiveRowThatIsNotARecordFailsEveryCallAndAnExpiredOneIsTakenOver() throws Exception {
    JdbcIdempotencyStore store = store();
    String table = JdbcIdempotencyStore.DEFAULT_TABLE;
    Map<String, String> tampering = new LinkedHashMap<>();
    tampering.put("owner = 'intruder'", "a claim with an outcome");
    tampering.put("outcome = NULL", "a completed record without an outcome");
    AtomicInteger runs = new AtomicInteger();
    Idempotency failOpen =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .build());
    int n = 0;
    for (Map.Entry<String, String> t : tampering.entrySet()) {
      String caseScope = scope + "-" + n++;
      RecordKey key = RecordKey.of(caseScope, "k");
      assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
      assertThat(store.complete(key, "o1", new byte[] {7}, LONG)).isTrue();
      long id = RecordKey.scopeIdOf(caseScope);
      execute("UPDATE " + table + " SET " + t.getKey() + " WHERE scope_id = " + id);
      String expected = "the row of this record in " + table + " is " + t.getValue();
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder(caseScope).resultType(Integer.class).build();

      assertThatThrownBy(() -> store.claim(key, "o2", null, LONG))
          .as(t.getKey())
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      assertThatThrownBy(() -> store.read(key))
          .as(t.getKey())
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      assertThatThrownBy(() -> failOpen.call(policy, "k", runs::incrementAndGet))
          .as(t.getKey())
          .isInstanceOf(IdempotencyOutcomeException.class)
          .hasMessageContaining(expected);
      try (Connection c = dataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE scope_id = " + id)) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).as(t.getKey() + ": the row is still there").isEqualTo(1);
      }

      try (Connection c = dataSource().getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE " + table + " SET expires_at = ? WHERE scope_id = " + id)) {
        ps.setTimestamp(1, Timestamp.valueOf("2000-01-01 00:00:00"));
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      assertThat(store.read(key)).as(t.getKey() + ", expired").isEmpty();
      assertThat(store.claim(key, "o3", null, LONG).isAcquired())
          .as(t.getKey() + ", expired: taken over")
          .isTrue();
    }
    assertThat(runs).as("not run over any of them, though fail-open").hasValue(0);
  }

  @Test
  void missingTableNamesTheTableAndTheDdl() {
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table("idem_no_such_table").build());
    assertThatThrownBy(() -> store.read(RecordKey.of(scope, "k")))
        .isInstanceOf(JdbcStoreException.class)
        .hasMessageContaining("idem_no_such_table")
        .hasMessageContaining(expectedDialect().schemaResource())
        .hasMessageContaining("idempotent.jdbc.create-table=true");
  }

  @Test
  void purgeDeletesExactlyTheExpiredRowsInBatches() throws Exception {
    String table = "idem_purge_test";
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    execute("DELETE FROM " + table);
    for (int i = 0; i < 2500; i++) {
      assertThat(
              store
                  .claim(RecordKey.of(scope, "expired-" + i), "o", null, Duration.ofNanos(1000))
                  .isAcquired())
          .isTrue();
    }
    List<RecordKey> live = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      RecordKey key = RecordKey.of(scope, "live-" + i);
      live.add(key);
      store.claim(key, "o", null, LONG);
      if (i % 2 == 0) {
        store.complete(key, "o", new byte[] {(byte) i}, LONG);
      }
    }
    Thread.sleep(20);
    assertThat(count(table)).isEqualTo(2530);
    assertThat(store.purgeBatch(1000)).isEqualTo(1000);
    assertThat(count(table)).isEqualTo(1530);
    assertThat(store.purgeExpired(1000)).isEqualTo(1500);
    assertThat(count(table)).isEqualTo(30);
    for (RecordKey key : live) {
      assertThat(store.read(key)).as(key.key()).isPresent();
    }
    assertThat(store.purgeExpired(1000)).isZero();
  }

  /** The shipped DDL's expiry index: the purge goes through it, and says so once. */
  @Test
  void thePurgeOfTheShippedTableGoesThroughItsExpiryIndex() throws Exception {
    String table = "idem_purge_indexed_test";
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    execute("DELETE FROM " + table);
    for (int i = 0; i < 30; i++) {
      store.claim(RecordKey.of(scope, "expired-" + i), "o", null, Duration.ofNanos(1000));
    }
    store.claim(RecordKey.of(scope, "live"), "o", null, LONG);
    Thread.sleep(20);
    String log = standardErrorOf(() -> assertThat(store.purgeBatch(10)).isEqualTo(10));
    assertThat(log)
        .contains("table " + table + " has an index on expires_at (")
        .containsIgnoringCase(expiryIndex(table))
        .contains("at most 10 expired rows a statement");
    assertThat(standardErrorOf(() -> store.purgeExpired(10))).doesNotContain("index on");
    assertThat(count(table)).isOne();
  }

  /**
   * Without the expiry index the purge walks the primary key, chunk by chunk, a chunk per {@code
   * purgeBatch}, onwards from one call to the next and from the beginning again after the end: it
   * deletes every expired row, claims and completed records alike, and no live one, over keys that
   * sort in many ways in several scopes.
   */
  @Test
  void withoutTheExpiryIndexThePurgeBatchesWalkThePrimaryKey() throws Exception {
    String table = "idem_walk_test";
    JdbcIdempotencyStore store = storeWithoutExpiryIndex(table);
    List<RecordKey> live = new ArrayList<>();
    List<RecordKey> completed = new ArrayList<>();
    for (int i = 0; i < 2500; i++) {
      RecordKey key = RecordKey.of(scope + WALK_SCOPES[i % 3], oddKey(i / 3));
      switch (i % 5) {
        case 0 -> {
          assertThat(store.claim(key, "o", null, LONG).isAcquired()).as(key.key()).isTrue();
          live.add(key);
        }
        case 1 -> {
          assertThat(store.claim(key, "o", null, LONG).isAcquired()).as(key.key()).isTrue();
          assertThat(store.complete(key, "o", new byte[] {1}, LONG)).isTrue();
          completed.add(key);
        }
        case 3 -> {
          assertThat(store.claim(key, "o", null, LONG).isAcquired()).as(key.key()).isTrue();
          assertThat(store.complete(key, "o", new byte[] {2}, Duration.ofNanos(1000))).isTrue();
        }
        default ->
            assertThat(store.claim(key, "o", null, Duration.ofNanos(1000)).isAcquired())
                .as(key.key())
                .isTrue();
      }
    }
    Thread.sleep(20);
    assertThat(count(table)).isEqualTo(2500);

    int[] deleted = new int[1];
    String log = standardErrorOf(() -> deleted[0] = store.purgeBatch(100));
    assertThat(log)
        .contains("table " + table + " has no index on expires_at")
        .contains("the purge walks the primary key in batches of 100 rows");
    assertThat(deleted[0]).as("the expired rows of the first 100").isBetween(1, 100);
    int total = deleted[0];
    // 2,500 rows are 25 chunks of 100; the 26th finds no row at its end and runs to the end
    for (int chunk = 2; chunk <= 26; chunk++) {
      int n = store.purgeBatch(100);
      assertThat(n).as("chunk " + chunk).isBetween(0, 100);
      total += n;
    }
    assertThat(total).as("every expired row, once").isEqualTo(1500);
    assertThat(count(table)).isEqualTo(1000);
    assertLive(store, live, completed);

    // the walk is at the beginning again: new expired rows anywhere are found by one more pass
    for (int i = 0; i < 300; i++) {
      store.claim(
          RecordKey.of(scope + WALK_SCOPES[i % 3], oddKey(i) + "-later"),
          "o",
          null,
          Duration.ofNanos(1000));
    }
    Thread.sleep(20);
    int again = 0;
    for (int chunk = 0; chunk < 14; chunk++) {
      again += store.purgeBatch(100);
    }
    assertThat(again).as("the expired rows of the second pass").isEqualTo(300);
    assertThat(count(table)).isEqualTo(1000);
    assertLive(store, live, completed);
  }

  /**
   * {@code purgeExpired} without the expiry index walks the whole table once, from where the last
   * purge left off round to there, however many of its chunks find nothing expired.
   */
  @Test
  void withoutTheExpiryIndexPurgeExpiredWalksTheWholeTableOnce() throws Exception {
    String table = "idem_walk_once_test";
    JdbcIdempotencyStore store = storeWithoutExpiryIndex(table);
    List<RecordKey> live = new ArrayList<>();
    for (int i = 0; i < 2500; i++) {
      RecordKey key = RecordKey.of(scope + WALK_SCOPES[i % 3], oddKey(i / 3));
      assertThat(store.claim(key, "o", null, LONG).isAcquired()).as(key.key()).isTrue();
      live.add(key);
    }
    for (int chunk = 0; chunk < 12; chunk++) {
      assertThat(store.purgeBatch(100)).as("nothing has expired").isZero();
    }
    // the cursor is about half way: expired rows before it and after it
    for (int i = 0; i < 40; i++) {
      store.claim(
          RecordKey.of(scope + WALK_SCOPES[i % 3], oddKey(i * 61) + "~"),
          "o",
          null,
          Duration.ofNanos(1000));
    }
    Thread.sleep(20);
    assertThat(count(table)).isEqualTo(2540);
    assertThat(store.purgeExpired(100)).as("rows deleted in one walk of the table").isEqualTo(40);
    assertThat(count(table)).isEqualTo(2500);
    assertThat(store.purgeExpired(100)).isZero();
    assertLive(store, live, List.of());
  }

  private static final String[] WALK_SCOPES = {"-a", "-B", "-\u00fc"};

  /**
   * Keys that sort differently by case, accents, code points and numbers, and prefixes of each
   * other.
   */
  private static String oddKey(int i) {
    return switch (i % 8) {
      case 0 -> "k" + i;
      case 1 -> "K" + i;
      case 2 -> "k" + i + "x"; // "k<i>" (case 0 of another i) is a prefix of some of these
      case 3 -> "\u00e9" + i;
      case 4 -> "e\u0301" + i;
      case 5 -> "\u00c9" + i;
      case 6 -> "\ud83d\ude00" + i;
      default -> String.valueOf(i);
    };
  }

  private static void assertLive(
      JdbcIdempotencyStore store, List<RecordKey> inProgress, List<RecordKey> completed) {
    for (RecordKey key : inProgress) {
      assertThat(store.read(key)).as(key.key()).get().matches(r -> !r.isCompleted());
    }
    for (RecordKey key : completed) {
      assertThat(store.read(key)).as(key.key()).get().matches(IdempotencyRecord::isCompleted);
    }
  }

  /**
   * A store on {@code table}, created afresh from the shipped DDL, its expiry index then dropped by
   * the statement docs/stores/jdbc.md shows for this database.
   */
  JdbcIdempotencyStore storeWithoutExpiryIndex(String table) throws Exception {
    execute("DROP TABLE IF EXISTS " + table);
    JdbcIdempotencyStore store =
        track(JdbcIdempotencyStore.builder(dataSource()).table(table).createTable(true).build());
    String drop = documentedDropOfTheExpiryIndex();
    assertThat(drop).contains(expiryIndex(JdbcIdempotencyStore.DEFAULT_TABLE));
    execute(drop.replace(JdbcIdempotencyStore.DEFAULT_TABLE, table));
    return store;
  }

  /**
   * The statement of docs/stores/jdbc.md that drops the expiry index on this database: in the block
   * after the marker naming this class, the one after the comment naming the database.
   */
  String documentedDropOfTheExpiryIndex() throws Exception {
    List<String> lines =
        Files.readAllLines(Path.of("").toAbsolutePath().getParent().resolve("docs/stores/jdbc.md"));
    int at =
        lines.indexOf(
            "<!-- tested-by: store-jdbc/src/test/java/dev/idempotent/jdbc/JdbcStoreChecks.java"
                + " -->");
    assertThat(at).as("the marker in docs/stores/jdbc.md").isNotNegative();
    String database =
        switch (expectedDialect()) {
          case MARIADB, MYSQL -> "-- MySQL/MariaDB";
          case POSTGRESQL -> "-- PostgreSQL";
          case H2 -> "-- H2";
        };
    for (int i = at + 2; !lines.get(i).equals("```"); i++) {
      if (lines.get(i).startsWith(database)) {
        return lines.get(i + 1).strip().replaceAll(";$", "");
      }
    }
    throw new AssertionError("no statement for " + database + " in docs/stores/jdbc.md");
  }

  /** The name of the expiry index of the shipped DDL for {@code table}. */
  String expiryIndex(String table) {
    return table
        + (expectedDialect() == JdbcDialect.POSTGRESQL ? "_expiry_idx" : "_expires_at_idx");
  }

  @Test
  void scheduledPurgeRunsUntilClosed() throws Exception {
    String table = "idem_scheduled_purge_test";
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .table(table)
                .createTable(true)
                .purgeEvery(Duration.ofSeconds(1), 2)
                .build());
    for (int i = 0; i < 5; i++) {
      store.claim(RecordKey.of(scope, "expired-" + i), "o", null, Duration.ofMillis(1));
    }
    store.claim(RecordKey.of(scope, "live"), "o", null, LONG);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (count(table, scope) > 1 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(count(table, scope)).isEqualTo(1);
    store.close();
    store.claim(RecordKey.of(scope, "after-close"), "o", null, Duration.ofMillis(1));
    Thread.sleep(1500);
    assertThat(count(table, scope)).as("no purge after close").isEqualTo(2);
  }

  /**
   * A claim that read the key first and found nothing, on connections that are not autocommit and
   * keep one snapshot per transaction (repeatable read), while a rival inserts the key between its
   * read and its insert: the claim answers with the rival's claim, not an error and not a claim of
   * its own.
   */
  @Test
  void aKeyInsertedBetweenTheReadAndTheInsertIsTheAnswerUnderRepeatableRead() throws Exception {
    JdbcIdempotencyStore rival = store();
    RecordKey key = RecordKey.of(scope, "raced");
    assertThat(
            rival.claim(RecordKey.of(scope, "registers-the-scope"), "r", null, LONG).isAcquired())
        .isTrue();
    AtomicBoolean raced = new AtomicBoolean();
    DataSource snapshots =
        WatchedConnections.of(
            dataSource(),
            c -> {
              c.setAutoCommit(false);
              c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            },
            sql -> {
              if (sql.startsWith("INSERT INTO idempotency_record (") && !raced.getAndSet(true)) {
                assertThat(rival.claim(key, "rival", null, LONG).isAcquired()).isTrue();
              }
            });
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(snapshots)
                .dialect(expectedDialect())
                .claimOrder(ClaimOrder.READ_FIRST)
                .build());
    ClaimResult answer = store.claim(key, "mine", null, LONG);
    assertThat(raced).isTrue();
    assertThat(answer.isAcquired()).isFalse();
    assertThat(answer.existing().isCompleted()).isFalse();
    assertThat(rival.complete(key, "rival", new byte[] {1}, LONG)).isTrue();
  }

  @Test
  void callerTransactionRollbackLeavesNoBusinessRowAndNoCompletedRecord() throws Exception {
    ThreadLocal<Connection> tx = new ThreadLocal<>();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .connectionProvider(threadLocalProvider(tx))
                .build());
    execute("CREATE TABLE IF NOT EXISTS " + BUSINESS_TABLE + " (id VARCHAR(100) PRIMARY KEY)");
    RecordKey key = RecordKey.of(scope, "order-1");
    assertThat(store.claim(key, "owner-a", "fp", Duration.ofMillis(500)).isAcquired()).isTrue();

    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      tx.set(c);
      try {
        insertBusinessRow(c, scope);
        assertThat(store.complete(key, "owner-a", "paid".getBytes(StandardCharsets.UTF_8), LONG))
            .isTrue();
        c.rollback(); // the business operation failed after the outcome was recorded
      } finally {
        tx.remove();
        c.setAutoCommit(true);
      }
    }
    assertThat(countBusinessRows(scope)).isZero();
    IdempotencyRecord record = store.read(key).orElseThrow();
    assertThat(record.isCompleted()).isFalse();
    assertThat(record.ownerToken()).isEqualTo("owner-a");

    ClaimResult retry = claimWithin(store, key, "owner-b", Duration.ofSeconds(5));
    assertThat(retry.isTakeover()).as("a retry after the lease runs again").isTrue();
  }

  @Test
  void callerTransactionCommitRecordsOutcomeWithBusinessRow() throws Exception {
    ThreadLocal<Connection> tx = new ThreadLocal<>();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .connectionProvider(threadLocalProvider(tx))
                .build());
    execute("CREATE TABLE IF NOT EXISTS " + BUSINESS_TABLE + " (id VARCHAR(100) PRIMARY KEY)");
    RecordKey key = RecordKey.of(scope, "order-2");
    store.claim(key, "owner-a", null, LONG);
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      tx.set(c);
      try {
        insertBusinessRow(c, scope);
        assertThat(store.complete(key, "owner-a", new byte[] {42}, LONG)).isTrue();
        c.commit();
      } finally {
        tx.remove();
        c.setAutoCommit(true);
      }
    }
    assertThat(countBusinessRows(scope)).isEqualTo(1);
    assertThat(store.read(key).orElseThrow().outcome()).containsExactly(42);

    // No transaction open: the provider returns null and the store uses its own connection.
    RecordKey other = RecordKey.of(scope, "order-3");
    store.claim(other, "owner-c", null, LONG);
    assertThat(store.complete(other, "owner-c", new byte[] {1}, LONG)).isTrue();
    assertThat(store.read(other).orElseThrow().isCompleted()).isTrue();
  }

  /**
   * A completion that fails in the caller's transaction fails the call and is never recorded
   * anywhere else: the caller's work rolls back, no COMPLETED record appears (not even after the
   * time background retries took), and a retry after the lease runs the method. Before, the
   * completion was retried on a background thread, where the provider has no transaction, and
   * committed on the store's own connection.
   */
  @Test
  void aCompletionThatFailsInTheCallerTransactionFailsTheCallAndIsNeverRecordedElsewhere()
      throws Exception {
    ThreadLocal<Connection> tx = new ThreadLocal<>();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .queryTimeout(Duration.ofSeconds(1))
                .connectionProvider(threadLocalProvider(tx))
                .build());
    execute("CREATE TABLE IF NOT EXISTS " + BUSINESS_TABLE + " (id VARCHAR(100) PRIMARY KEY)");
    List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    Idempotency idempotency =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder(scope).lease(Duration.ofSeconds(1)).build();
    RecordKey key = RecordKey.of(scope, "order-1");
    AtomicInteger runs = new AtomicInteger();
    List<AutoCloseable> spoilers = new ArrayList<>();

    Exception first =
        inCallerTransaction(
            tx,
            () ->
                idempotency.execute(
                    policy,
                    "order-1",
                    () -> {
                      insertBusinessRow(tx.get(), scope + "-" + runs.incrementAndGet());
                      spoilers.add(spoilCallerTransaction(tx.get(), key));
                      return "paid";
                    }));
    for (AutoCloseable spoiler : spoilers) {
      spoiler.close();
    }
    Thread.sleep(1_500); // background retries of the completion would have run by now
    assertThat(store.read(key).map(IdempotencyRecord::isCompleted))
        .as("no COMPLETED record")
        .isNotEqualTo(Optional.of(true));
    assertThat(countBusinessRows(scope + "-1")).isZero();
    assertThat(first)
        .isInstanceOf(IdempotencyStoreException.class)
        .hasMessageContaining("never recorded elsewhere")
        .hasCauseInstanceOf(OutcomeNotRecordedException.class);
    assertThat(((OutcomeNotRecordedException) first.getCause()).failsTheCall()).isTrue();
    assertThat(first.getCause().getCause()).as("the store's failure, attached").isNotNull();
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .doesNotContain(IdempotencyEvent.Type.EXECUTED);

    Exception second =
        inCallerTransaction(
            tx,
            () ->
                idempotency.execute(
                    policy,
                    "order-1",
                    () -> {
                      insertBusinessRow(tx.get(), scope + "-" + runs.incrementAndGet());
                      return "paid";
                    }));
    assertThat(second).as("the retry after the lease").isNull();
    assertThat(runs).hasValue(2);
    assertThat(countBusinessRows(scope + "-2")).isEqualTo(1);
    assertThat(store.read(key).orElseThrow().isCompleted()).isTrue();
  }

  /**
   * Makes the next statement on the caller's connection {@code caller} fail, as the body of a
   * method would have done; returns what to close once the call has returned. By default a lock on
   * the record's row from another connection, which the completion waits for until its timeout;
   * PostgreSQL overrides it with a failed statement that aborts the transaction.
   */
  AutoCloseable spoilCallerTransaction(Connection caller, RecordKey key) throws SQLException {
    Connection locker = dataSource().getConnection();
    locker.setAutoCommit(false);
    try (PreparedStatement ps =
        locker.prepareStatement(
            "SELECT owner FROM "
                + JdbcIdempotencyStore.DEFAULT_TABLE
                + " WHERE scope_id = ? AND idem_key = ? FOR UPDATE")) {
      ps.setLong(1, key.scopeId());
      bindKeyPart(ps, 2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the claim's row").isTrue();
      }
    }
    return () -> {
      locker.rollback();
      locker.setAutoCommit(true);
      locker.close();
    };
  }

  /**
   * The completion of an owner that failed in the caller's transaction is refused later, on any
   * connection.
   */
  @Test
  void aCompletionThatFailedInTheCallerTransactionIsRefusedLaterOnTheStoreConnection()
      throws Exception {
    ThreadLocal<Connection> tx = new ThreadLocal<>();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .queryTimeout(Duration.ofSeconds(1))
                .connectionProvider(threadLocalProvider(tx))
                .build());
    RecordKey key = RecordKey.of(scope, "refused");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    Exception inTransaction =
        inCallerTransaction(
            tx,
            () -> {
              try (AutoCloseable spoiler = spoilCallerTransaction(tx.get(), key)) {
                assertThatThrownBy(() -> store.complete(key, "o1", new byte[] {1}, LONG))
                    .isInstanceOf(OutcomeNotRecordedException.class)
                    .hasMessageContaining("caller's transaction");
              }
              return null;
            });
    assertThat(inTransaction).as("what the work in the transaction threw").isNull();
    assertThatThrownBy(() -> store.complete(key, "o1", new byte[] {1}, LONG))
        .as("no transaction open now: the store would use its own connection")
        .isInstanceOf(OutcomeNotRecordedException.class)
        .matches(e -> ((OutcomeNotRecordedException) e).failsTheCall());
    assertThat(store.read(key).orElseThrow().isCompleted()).isFalse();
  }

  /**
   * A completion in the caller's transaction whose claim is no longer the caller's fails the call:
   * committing the transaction would commit the work while another caller runs the method.
   */
  @Test
  void aFencedCompletionInTheCallerTransactionFailsTheCall() throws Exception {
    ThreadLocal<Connection> tx = new ThreadLocal<>();
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(dataSource())
                .createTable(true)
                .connectionProvider(threadLocalProvider(tx))
                .build());
    RecordKey key = RecordKey.of(scope, "fenced");
    assertThat(store.claim(key, "o1", null, Duration.ofMillis(100)).isAcquired()).isTrue();
    Thread.sleep(200);
    assertThat(store.claim(key, "o2", null, LONG).isTakeover()).isTrue();
    Exception inTransaction =
        inCallerTransaction(
            tx,
            () -> {
              assertThatThrownBy(() -> store.complete(key, "o1", new byte[] {1}, LONG))
                  .isInstanceOf(OutcomeNotRecordedException.class)
                  .hasMessageContaining("no longer this call's")
                  .matches(e -> ((OutcomeNotRecordedException) e).failsTheCall());
              return null;
            });
    assertThat(inTransaction).as("what the work in the transaction threw").isNull();
    assertThat(store.read(key).orElseThrow().ownerToken()).isEqualTo("o2");
  }

  /**
   * A completion that failed on the store's own connection (no transaction was open) stays on the
   * store's own connections when it is tried again, even where the provider now returns a
   * transaction's connection.
   */
  @Test
  void aCompletionThatFailedOnTheStoreConnectionIsRetriedThereOnly() throws Exception {
    ThreadLocal<Connection> tx = new ThreadLocal<>();
    AtomicBoolean down = new AtomicBoolean();
    DataSource flaky =
        (DataSource)
            Proxy.newProxyInstance(
                JdbcStoreChecks.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (down.get() && method.getName().equals("getConnection")) {
                    throw new SQLTransientConnectionException("connection is not available");
                  }
                  try {
                    return method.invoke(dataSource(), args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    JdbcIdempotencyStore store =
        track(
            JdbcIdempotencyStore.builder(flaky)
                .dialect(expectedDialect())
                .connectionProvider(threadLocalProvider(tx))
                .build());
    store().close(); // creates the table
    RecordKey key = RecordKey.of(scope, "own");
    assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
    down.set(true);
    assertThatThrownBy(() -> store.complete(key, "o1", new byte[] {5}, LONG))
        .isInstanceOf(JdbcStoreException.class);
    down.set(false);
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      tx.set(c);
      try {
        assertThat(store.complete(key, "o1", new byte[] {5}, LONG)).isTrue();
        c.rollback();
      } finally {
        tx.remove();
        c.setAutoCommit(true);
      }
    }
    assertThat(store.read(key).orElseThrow().outcome())
        .as("recorded on the store's own connection")
        .containsExactly(5);
  }

  /**
   * Runs {@code work} in a transaction on a connection of {@link #dataSource()} that {@code tx}
   * hands to the store, as the plain-JDBC recipe does: commits when it returns, rolls back when it
   * throws; returns what it threw, or {@code null}.
   */
  Exception inCallerTransaction(ThreadLocal<Connection> tx, Callable<?> work) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      tx.set(c);
      try {
        work.call();
        c.commit();
        return null;
      } catch (Exception e) {
        c.rollback();
        return e;
      } finally {
        tx.remove();
        c.setAutoCommit(true);
      }
    }
  }

  /** Whether the database is MariaDB or MySQL, whose keys and scopes are bytes. */
  boolean isMySqlFamily() {
    return expectedDialect() == JdbcDialect.MARIADB || expectedDialect() == JdbcDialect.MYSQL;
  }

  void bindKeyPart(PreparedStatement ps, int index, String value) throws SQLException {
    if (isMySqlFamily()) {
      ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
    } else {
      ps.setString(index, value);
    }
  }

  /** A key that a driver's message would show: a card number and an e-mail address. */
  static String secretKey() {
    return "card=4111111111111111;user=alice-"
        + Long.toHexString(System.nanoTime())
        + "@example.com";
  }

  /**
   * Asserts that {@code t} carries {@code secret} nowhere: not in its message or stack trace print,
   * nor in any cause, suppressed or chained ({@link SQLException#getNextException()}) exception.
   */
  static void assertCarriesNo(Throwable t, String secret) {
    StringWriter printed = new StringWriter();
    t.printStackTrace(new PrintWriter(printed));
    assertThat(printed.toString()).as("the stack trace print").doesNotContain(secret);
    assertChainCarriesNo(t, secret, 0);
  }

  private static void assertChainCarriesNo(Throwable t, String secret, int depth) {
    if (t == null || depth > 20) {
      return;
    }
    assertThat(String.valueOf(t)).as("message of " + t.getClass().getName()).doesNotContain(secret);
    assertChainCarriesNo(t.getCause(), secret, depth + 1);
    for (Throwable s : t.getSuppressed()) {
      assertChainCarriesNo(s, secret, depth + 1);
    }
    if (t instanceof SQLException e) {
      assertChainCarriesNo(e.getNextException(), secret, depth + 1);
    }
  }

  /** What {@code work} writes to standard error (where the test logger writes) while it runs. */
  static String standardErrorOf(Callable<?> work) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      work.call();
    } finally {
      System.setErr(original);
    }
    String text = captured.toString(StandardCharsets.UTF_8);
    original.print(text);
    return text;
  }

  static ConnectionProvider threadLocalProvider(ThreadLocal<Connection> tx) {
    return new ConnectionProvider() {
      @Override
      public Connection connection() {
        return tx.get();
      }

      @Override
      public void done(Connection connection) {}
    };
  }

  static ClaimResult claimWithin(
      JdbcIdempotencyStore store, RecordKey key, String owner, Duration limit)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      ClaimResult r = store.claim(key, owner, null, LONG);
      if (r.isAcquired() || System.nanoTime() > deadline) {
        assertThat(r.isAcquired()).as("claim within " + limit).isTrue();
        return r;
      }
      Thread.sleep(50);
    }
  }

  private static void insertBusinessRow(Connection c, String id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + BUSINESS_TABLE + " (id) VALUES (?)")) {
      ps.setString(1, id);
      ps.executeUpdate();
    }
  }

  private int countBusinessRows(String id) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + BUSINESS_TABLE + " WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
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

  int count(String table, String scope) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE scope_id = ?")) {
      ps.setLong(1, RecordKey.scopeIdOf(scope));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
