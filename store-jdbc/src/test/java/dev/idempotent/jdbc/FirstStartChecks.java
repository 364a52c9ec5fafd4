package dev.idempotent.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.jdbc.internal.SchemaScript;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
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
import java.util.concurrent.atomic.AtomicInteger;
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

  /**
   * A creator that takes no lock (a migration tool, another process on an H2 server) creates the
   * tables just before this store's first DDL statement, which then fails as PostgreSQL's
   * concurrent {@code CREATE TABLE IF NOT EXISTS} does (a duplicate key, 23505): the store looks
   * again, finds the tables complete, comes up and serves.
   */
  @Test
  void aRaceLostToACreatorWithoutTheLockIsSuccessOnceTheTablesAreThere() throws Exception {
    String table = freshTable("idem_race_lost");
    AtomicInteger ddl = new AtomicInteger();
    DataSource racing =
        interceptingDdl(
            statement -> {
              if (ddl.incrementAndGet() == 1) {
                createWithoutTheStore(table);
                throw new SQLException(
                    "duplicate key value violates unique constraint \"pg_type_typname_nsp_index\"",
                    "23505");
              }
            });
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(racing)
            .table(table)
            .dialect(dialect())
            .createTable(true)
            .build();
    try {
      RecordKey key = RecordKey.of("race-lost", "k");
      assertThat(store.claim(key, "o1", null, LONG).isAcquired()).isTrue();
      assertThat(store.complete(key, "o1", new byte[] {1}, LONG)).isTrue();
    } finally {
      store.close();
    }
    assertThat(ddl).as("DDL statements run: the one that lost, then none").hasValue(1);
  }

  /**
   * A creation that keeps losing races (a deadlock, 40001, every time) and never finds the tables
   * is tried five times, then fails naming the SQLState and what to do.
   */
  @Test
  void racesLostEveryTimeFailAfterFiveCreations() throws Exception {
    String table = freshTable("idem_race_always");
    AtomicInteger ddl = new AtomicInteger();
    DataSource racing =
        interceptingDdl(
            statement -> {
              ddl.incrementAndGet();
              throw new SQLException("Deadlock found when trying to get lock", "40001", 1213);
            });
    assertThatThrownBy(
            () ->
                JdbcIdempotencyStore.builder(racing)
                    .table(table)
                    .dialect(dialect())
                    .createTable(true)
                    .build())
        .isInstanceOf(JdbcStoreException.class)
        .hasMessageContainingAll(
            "cannot create the idempotency table " + table,
            "[40001]",
            "won the race 5 times",
            dialect().schemaResource());
    assertThat(ddl).as("creations tried").hasValue(5);
  }

  /**
   * Any other error (here a missing right, as PostgreSQL says it) fails the build at once, saying
   * which rights a first start needs and how to do without them.
   */
  @Test
  void aMissingRightFailsAtOnceSayingWhatToDo() throws Exception {
    String table = freshTable("idem_no_right");
    AtomicInteger ddl = new AtomicInteger();
    DataSource refusing =
        interceptingDdl(
            statement -> {
              ddl.incrementAndGet();
              throw new SQLException("permission denied for schema public", "42501");
            });
    assertThatThrownBy(
            () ->
                JdbcIdempotencyStore.builder(refusing)
                    .table(table)
                    .dialect(dialect())
                    .createTable(true)
                    .build())
        .isInstanceOf(JdbcStoreException.class)
        .hasMessageContainingAll(
            "cannot create the idempotency table " + table,
            "[42501] permission denied",
            "the database user may not create them",
            "CREATE on the schema",
            dialect().schemaResource(),
            "SELECT, INSERT, UPDATE and DELETE on " + table + " and " + table + "_scope");
    assertThat(ddl).as("creations tried").hasValue(1);
  }

  /**
   * While another session holds the lock under the name docs/stores/jdbc.md gives ({@code lockSql},
   * run on a connection in a transaction), a build on a fresh table waits for it, and when the wait
   * (six times the query timeout) runs out fails naming the lock, having created nothing; once the
   * lock is released, the build creates the tables.
   */
  void aBuildWaitsForTheLockHeldElsewhere(String lockSql, String unlockSql, String name)
      throws Exception {
    String table = freshTable("idem_locked");
    try (Connection holder = dataSource().getConnection();
        Statement st = holder.createStatement()) {
      holder.setAutoCommit(false);
      st.execute(lockSql.replace("<name>", name.replace("<table>", table)));
      try {
        assertThatThrownBy(
                () ->
                    JdbcIdempotencyStore.builder(dataSource())
                        .table(table)
                        .dialect(dialect())
                        .queryTimeout(Duration.ofSeconds(1))
                        .createTable(true)
                        .build())
            .isInstanceOf(JdbcStoreException.class)
            .hasMessageContainingAll(
                "[55P03]", "waited 6 s for the lock " + name.replace("<table>", table));
        assertThat(tableExists(table)).as("nothing created").isFalse();
      } finally {
        if (unlockSql != null) {
          st.execute(unlockSql.replace("<name>", name.replace("<table>", table)));
        }
        holder.rollback();
      }
    }
    JdbcIdempotencyStore.builder(dataSource())
        .table(table)
        .dialect(dialect())
        .createTable(true)
        .build()
        .close();
    assertThat(tableExists(table)).isTrue();
  }

  private boolean tableExists(String table) throws SQLException {
    try (Connection c = dataSource().getConnection();
        java.sql.ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
      return rs.next();
    }
  }

  /** What a DDL statement meets before it runs. */
  interface DdlInterceptor {
    void before(String ddl) throws SQLException;
  }

  /**
   * The test's data source, whose statements meet {@code interceptor} before each {@code CREATE} or
   * {@code INSERT} they execute as plain SQL text (the DDL script's statements).
   */
  DataSource interceptingDdl(DdlInterceptor interceptor) {
    DataSource real = dataSource();
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object result = invoke(real, m, args);
              return result instanceof Connection c
                  ? interceptingConnection(c, interceptor)
                  : result;
            });
  }

  private static Connection interceptingConnection(Connection real, DdlInterceptor interceptor) {
    return (Connection)
        Proxy.newProxyInstance(
            FirstStartChecks.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              Object result = invoke(real, m, args);
              if (result instanceof Statement st && !(result instanceof PreparedStatement)) {
                return Proxy.newProxyInstance(
                    FirstStartChecks.class.getClassLoader(),
                    new Class<?>[] {Statement.class},
                    (sp, sm, sargs) -> {
                      if (sm.getName().equals("execute")
                          && sargs != null
                          && sargs[0] instanceof String sql
                          && (sql.startsWith("CREATE") || sql.startsWith("INSERT"))) {
                        interceptor.before(sql);
                      }
                      return invoke(st, sm, sargs);
                    });
              }
              return result;
            });
  }

  private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Creates {@code table}'s tables with the shipped DDL on a connection of its own. */
  void createWithoutTheStore(String table) throws SQLException {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(true);
      for (String ddl : SchemaScript.statements(dialect(), table)) {
        st.execute(ddl);
      }
    }
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
