package dev.idempotent.jdbc.internal;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.jdbc.JdbcDialect;
import dev.idempotent.jdbc.JdbcIdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pause between the batches of a purge ({@link Purge.BatchPause}) and the scheduled purge's
 * pause ({@link PurgeSchedule#pauseNanos}), through the expiry index and walking the primary key,
 * on H2.
 */
class PurgePauseTest {
  private static final String SCOPE = "PurgePauseTest.scope()";

  private final JdbcDataSource dataSource = new JdbcDataSource();
  private final List<AutoCloseable> stores = new ArrayList<>();

  PurgePauseTest() {
    dataSource.setURL("jdbc:h2:mem:purge-pause;DB_CLOSE_DELAY=-1");
  }

  @AfterEach
  void clearInterruptAndClose() throws Exception {
    Thread.interrupted();
    for (AutoCloseable s : stores) {
      s.close();
    }
  }

  @Test
  void theIndexedPurgePausesBetweenBatchesAndNotAfterTheLast() throws Exception {
    Purge table = tableWithExpired("idem_pause_indexed", 25, false);
    List<Long> pauses = new ArrayList<>();
    List<Integer> deleted = new ArrayList<>();
    assertThat(
            table.purgeExpired(
                10,
                (nanos, sofar) -> {
                  pauses.add(nanos);
                  deleted.add(sofar);
                }))
        .isEqualTo(25);
    assertThat(pauses).as("a pause after each full batch").hasSize(2).allMatch(n -> n > 0);
    assertThat(deleted).as("the rows deleted before each pause").containsExactly(10, 20);
    assertThat(count("idem_pause_indexed")).isEqualTo(5);
  }

  @Test
  void anInterruptedPauseEndsTheIndexedPurgeWithWhatItDeleted() throws Exception {
    Purge table = tableWithExpired("idem_pause_indexed_stop", 25, false);
    assertThat(table.purgeExpired(10, interruptedAfter(1))).isEqualTo(10);
    assertThat(Thread.interrupted()).as("the thread stays interrupted").isTrue();
    assertThat(count("idem_pause_indexed_stop")).isEqualTo(20);
  }

  @Test
  void theWalkingPurgePausesBetweenChunksAndAnInterruptEndsIt() throws Exception {
    Purge table = tableWithExpired("idem_pause_walking", 25, true);
    assertThat(table.purgeExpired(10, interruptedAfter(1)))
        .as("the first chunk of 10 rows in key order: expired ones")
        .isEqualTo(10);
    assertThat(Thread.interrupted()).isTrue();
    assertThat(count("idem_pause_walking")).isEqualTo(20);
    List<Long> pauses = new ArrayList<>();
    assertThat(table.purgeExpired(10, (nanos, sofar) -> pauses.add(nanos)))
        .as("the rest of the walk")
        .isEqualTo(15);
    assertThat(count("idem_pause_walking")).isEqualTo(5);
    assertThat(pauses).as("a pause after each chunk but the last").isNotEmpty();
  }

  @Test
  void withoutARunBeforeOrBehindScheduleTheScheduledPauseIsFourTimesTheBatchUpToTenSeconds() {
    long interval = SECONDS.toNanos(60);
    assertThat(PurgeSchedule.pauseNanos(0, 10, 0, 0, interval)).isZero();
    assertThat(PurgeSchedule.pauseNanos(-5, 10, 0, 0, interval)).isZero();
    assertThat(PurgeSchedule.pauseNanos(MILLISECONDS.toNanos(20), 1000, 0, 0, interval))
        .as("no run before")
        .isEqualTo(MILLISECONDS.toNanos(80));
    assertThat(PurgeSchedule.pauseNanos(SECONDS.toNanos(3), 1000, 0, 0, interval))
        .isEqualTo(SECONDS.toNanos(10));
    assertThat(PurgeSchedule.pauseNanos(Long.MAX_VALUE, 1000, 0, 0, interval))
        .as("no overflow")
        .isEqualTo(SECONDS.toNanos(10));
    assertThat(
            PurgeSchedule.pauseNanos(
                MILLISECONDS.toNanos(20), 1000, SECONDS.toNanos(61), 2000, interval))
        .as("still running after the interval: catching up")
        .isEqualTo(MILLISECONDS.toNanos(80));
  }

  @Test
  void onScheduleARunSpreadsThePreviousRunsRowsOverHalfTheInterval() {
    long interval = SECONDS.toNanos(60);
    // the run before deleted 3,000 rows: 1,000 of them are due after 10 s (a third of 30 s)
    assertThat(
            PurgeSchedule.pauseNanos(
                MILLISECONDS.toNanos(20), 1000, MILLISECONDS.toNanos(20), 3000, interval))
        .isEqualTo(SECONDS.toNanos(10) - MILLISECONDS.toNanos(20));
    // ahead of schedule by less than four batches' time: the least pause still holds
    assertThat(
            PurgeSchedule.pauseNanos(
                MILLISECONDS.toNanos(20), 1000, SECONDS.toNanos(10) - 50_000, 3000, interval))
        .isEqualTo(MILLISECONDS.toNanos(80));
    // more rows than the run before: on at the same rate until the interval has passed
    assertThat(
            PurgeSchedule.pauseNanos(
                MILLISECONDS.toNanos(20), 4000, SECONDS.toNanos(35), 3000, interval))
        .isEqualTo(SECONDS.toNanos(5));
    // a long interval: no pause longer than 10 s
    assertThat(
            PurgeSchedule.pauseNanos(
                MILLISECONDS.toNanos(20), 1000, 0, 1000, SECONDS.toNanos(3600)))
        .isEqualTo(SECONDS.toNanos(10));
  }

  private static Purge.BatchPause interruptedAfter(int pauses) {
    int[] seen = {0};
    return (nanos, deleted) -> {
      if (++seen[0] >= pauses) {
        throw new InterruptedException("stop");
      }
    };
  }

  /**
   * A table of {@code expired} expired records and 5 live ones, written through a store, and a
   * purge of its own on it (which finds the table's indexes at its first batch).
   */
  private Purge tableWithExpired(String name, int expired, boolean withoutIndex) throws Exception {
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(dataSource).table(name).createTable(true).build();
    stores.add(store);
    for (int i = 0; i < expired; i++) {
      store.claim(RecordKey.of(SCOPE, "expired-" + i), "o", null, Duration.ofMillis(1));
    }
    for (int i = 0; i < 5; i++) {
      store.claim(RecordKey.of(SCOPE, "live-" + i), "o", null, Duration.ofHours(1));
    }
    Thread.sleep(20);
    if (withoutIndex) {
      execute("DROP INDEX " + name + "_expires_at_idx");
    }
    StoreConnections connections =
        new StoreConnections(dataSource, name, JdbcDialect.H2, Duration.ofSeconds(5), null);
    return new Purge(
        new SqlAccessor(SqlStatements.of(JdbcDialect.H2, name)), connections, (c, t) -> {});
  }

  private void execute(String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private int count(String table) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
