package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The first start on a database without the tables, as a rolling deploy of many instances does it:
 * stores built at once with {@code createTable(true)} on a fresh table name all come up and all
 * serve calls. Each store stands for one instance: its own connection, built on its own thread, all
 * released by one latch.
 */
abstract class FirstStartChecks {
  static final Duration LONG = Duration.ofMinutes(10);
  static final int STORES = 8;
  static final int RACES = 20;

  private final List<String> tables = new ArrayList<>();

  abstract DataSource dataSource();

  abstract JdbcDialect dialect();

  /**
   * A table name no earlier run left behind, dropped (with the tables next to it) after the test.
   */
  String freshTable(String prefix) throws SQLException {
    String table = prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    tables.add(table);
    dropTables(table);
    return table;
  }

  @AfterEach
  void dropFreshTables() throws SQLException {
    for (String table : tables) {
      dropTables(table);
    }
  }

  /**
   * {@value #STORES} stores built at once on a fresh table, {@value #RACES} times: every build
   * succeeds, and every store then claims and completes a key of one shared scope (the scope's
   * first registration races too) and reads every other store's record.
   */
  @Test
  void manyStoresBuiltAtOnceOnAFreshTableAllComeUpAndServeCalls() throws Exception {
    List<String> failures = new ArrayList<>();
    for (int race = 1; race <= RACES; race++) {
      failures.addAll(race(race, freshTable("idem_first_start")));
    }
    assertThat(failures).as("failures of %d races of %d stores", RACES, STORES).isEmpty();
  }

  /** One race: what failed, one line per failure. */
  private List<String> race(int race, String table) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(STORES);
    List<String> failures = new CopyOnWriteArrayList<>();
    List<JdbcIdempotencyStore> built = new CopyOnWriteArrayList<>();
    Set<Integer> served = ConcurrentHashMap.newKeySet();
    String scope = "first-start-" + race;
    try {
      warmUp(STORES);
      CountDownLatch ready = new CountDownLatch(STORES);
      CountDownLatch go = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(STORES);
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < STORES; i++) {
        int n = i;
        running.add(
            pool.submit(
                () -> {
                  JdbcIdempotencyStore store = null;
                  try {
                    ready.countDown();
                    go.await();
                    store =
                        JdbcIdempotencyStore.builder(dataSource())
                            .table(table)
                            .dialect(dialect())
                            .createTable(true)
                            .build();
                    built.add(store);
                    RecordKey key = RecordKey.of(scope, "order-" + n);
                    assertThat(store.claim(key, "owner-" + n, null, LONG).isAcquired())
                        .as("claim of %s", key)
                        .isTrue();
                    assertThat(store.complete(key, "owner-" + n, new byte[] {(byte) n}, LONG))
                        .as("completion of %s", key)
                        .isTrue();
                    served.add(n);
                  } catch (Throwable t) {
                    failures.add("race " + race + ", store " + n + ": " + t);
                  } finally {
                    done.countDown();
                  }
                  done.await();
                  if (!served.contains(n)) {
                    return null;
                  }
                  for (int other : served) {
                    RecordKey key = RecordKey.of(scope, "order-" + other);
                    try {
                      Optional<IdempotencyRecord> record = store.read(key);
                      if (record.isEmpty() || record.get().outcome()[0] != (byte) other) {
                        failures.add(
                            "race " + race + ", store " + n + " reads " + key + " as " + record);
                      }
                    } catch (RuntimeException e) {
                      failures.add("race " + race + ", store " + n + " reads " + key + ": " + e);
                    }
                  }
                  return null;
                }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).as("threads ready").isTrue();
      go.countDown();
      for (Future<?> f : running) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      built.forEach(JdbcIdempotencyStore::close);
      pool.shutdownNow();
    }
    return failures;
  }

  /** Opens {@code n} connections at once, so that no build waits for the pool to open one. */
  void warmUp(int n) throws SQLException {
    List<Connection> open = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        open.add(dataSource().getConnection());
      }
    } finally {
      for (Connection c : open) {
        c.close();
      }
    }
  }

  void dropTables(String table) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      for (String t : List.of(table, table + "_scope", table + "_meta")) {
        st.execute("DROP TABLE IF EXISTS " + t);
      }
    }
  }
}
