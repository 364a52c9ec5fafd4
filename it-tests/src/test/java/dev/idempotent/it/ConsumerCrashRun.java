package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.redisson.api.RedissonClient;

/**
 * One run of a consumer crash test ({@link RabbitConsumerCrashTest}, {@link
 * KafkaConsumerCrashTest}) on one store: the PostgreSQL table of the consumers' business effects,
 * the store's records under a name of this run only (a JDBC record table, a Redis key prefix), the
 * consumer JVMs killed between their effect and their acknowledgement, and the exactly-once checks.
 * {@link #close()} drops the run's tables and keys, so that runs never see each other's data.
 *
 * <p>100 messages and one kill; {@code -Dsoak=true}: 1,000 messages and three kills.
 */
final class ConsumerCrashRun implements AutoCloseable {
  static final boolean SOAK = Boolean.getBoolean("soak");

  final int messages = SOAK ? 1_000 : 100;
  final int kills = SOAK ? 3 : 1;
  final String run = UUID.randomUUID().toString().substring(0, 8);

  private final String name;
  private final Backend store;
  private final BackendSpec storeSpec;
  private final String postgres;
  private final String effects;
  private final String records;
  private final Path dir;
  private final long started = System.nanoTime();
  private long killsStarted;
  private long killsEnded;
  private final Connection db;
  private final Statement sql;

  /**
   * Creates the effect table and, for a JDBC store, the record tables of this run.
   *
   * @param name the broker, for the run's directory and its summary line
   * @param store {@link Backend#REDIS} or {@link Backend#POSTGRES} (the JDBC store)
   */
  ConsumerCrashRun(String name, Backend store) throws Exception {
    if (store != Backend.REDIS && store != Backend.POSTGRES) {
      throw new IllegalArgumentException(
          "the crash test runs on REDIS or POSTGRES (the JDBC store), not " + store);
    }
    this.name = name;
    this.store = store;
    this.storeSpec = new BackendSpec(store.spec());
    this.postgres = TestEnvironment.postgresUrl();
    this.effects = "crash_effect_" + run;
    this.records = storeSpec.isJdbc() ? "crash_record_" + run : "idem-crash-" + run + ":";
    this.dir =
        Path.of(
            "target",
            "it-runs",
            name + "-crash-" + store.name().toLowerCase(Locale.ROOT) + "-" + run);
    this.db = DriverManager.getConnection(postgres);
    this.sql = db.createStatement();
    try {
      sql.execute(
          "CREATE TABLE "
              + effects
              + " (id BIGSERIAL PRIMARY KEY, message_id TEXT NOT NULL, worker TEXT NOT NULL)");
      if (storeSpec.isJdbc()) {
        // the consumers' store tables, made once before they start (concurrent DDL can collide)
        storeSpec.openStore("idem-crash-setup", Duration.ofSeconds(10), true, records).close();
      }
    } catch (Exception e) {
      try {
        close();
      } catch (Exception cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /** The consumers' arguments: {@code brokerArgs}, then the store, the effect table, the scope. */
  String[] args(String... brokerArgs) {
    List<String> all = new ArrayList<>(Arrays.asList(brokerArgs));
    all.add("store=" + storeSpec.spec());
    all.add("records=" + records);
    all.add("postgres=" + postgres);
    all.add("table=" + effects);
    all.add("scope=" + name + "-crash." + run);
    return all.toArray(String[]::new);
  }

  /**
   * Starts {@link #kills} consumer JVMs one after the other; each processes {@code messages /
   * (kills + 1)} messages and holds the next one after its effect is committed and its outcome
   * recorded, before its acknowledgement: this checks that the held message's effect is committed
   * (exactly one row, seen from another connection) and kills the JVM with SIGKILL. The next
   * consumer must get the held message again and replay it (a replay needs the completed record; a
   * redelivery means no acknowledgement). Returns the held messages.
   */
  List<String> killConsumers(Class<?> worker, String[] args) throws Exception {
    List<String> held = new ArrayList<>();
    int holdAfter = messages / (kills + 1);
    String[] holding = Arrays.copyOf(args, args.length + 1);
    holding[args.length] = "holdAfter=" + holdAfter;
    killsStarted = System.nanoTime();
    for (int k = 0; k < kills; k++) {
      try (WorkerProcess consumer = WorkerProcess.start(dir, "consumer-" + k, worker, holding)) {
        consumer.awaitLine("READY", 60);
        if (k > 0) {
          // the message the killed consumer held comes back here first, and is replayed
          assertReplayed(consumer, held.get(k - 1));
        }
        String message = consumer.awaitLine("HOLDING ", 120).substring("HOLDING ".length());
        assertThat(effectsOf(message))
            .as("effects of %s committed before the kill", message)
            .isEqualTo(1);
        held.add(message);
        consumer.kill();
      }
    }
    killsEnded = System.nanoTime();
    assertThat(held).hasSize(kills);
    return held;
  }

  /** Waits for {@code consumer} to get {@code message} again and replay it. */
  static void assertReplayed(WorkerProcess consumer, String message) throws InterruptedException {
    assertThat(consumer.awaitLine("OUTCOME " + message + " ", 120)).endsWith("replayed");
  }

  /** Messages with at least one effect. */
  long distinctEffects() throws SQLException {
    try (ResultSet rs = sql.executeQuery("SELECT count(DISTINCT message_id) FROM " + effects)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Waits (at most {@code timeout}) until every message has an effect. */
  void awaitEveryEffect(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (distinctEffects() < messages && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  private long effectsOf(String message) throws SQLException {
    try (PreparedStatement ps =
        db.prepareStatement("SELECT count(*) FROM " + effects + " WHERE message_id = ?")) {
      ps.setString(1, message);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Every message has exactly one effect, and the store holds one record per message under this
   * run's name (so the consumers did use the store of this run). Prints a summary line.
   */
  void assertExactlyOnce(List<String> held) throws Exception {
    long count;
    long distinct;
    try (ResultSet rs =
        sql.executeQuery("SELECT count(*), count(DISTINCT message_id) FROM " + effects)) {
      rs.next();
      count = rs.getLong(1);
      distinct = rs.getLong(2);
    }
    long stored = storedRecords();
    System.out.printf(
        Locale.ROOT,
        "CRASH %s x %s: %d messages, %d kills (held %s), %d effects, %d distinct, %d records;"
            + " %.1f s (set-up %.1f s, killed consumers %.1f s, last consumer %.1f s)%n",
        name,
        store,
        messages,
        held.size(),
        held,
        count,
        distinct,
        stored,
        seconds(started, System.nanoTime()),
        seconds(started, killsStarted),
        seconds(killsStarted, killsEnded),
        seconds(killsEnded, System.nanoTime()));
    assertThat(held).as("kills between commit and acknowledgement").hasSize(kills);
    assertThat(distinct).as("messages with an effect").isEqualTo(messages);
    assertThat(count).as("effects").isEqualTo(messages);
    assertThat(stored).as("records of this run in the %s store", store).isEqualTo(messages);
  }

  private static double seconds(long from, long to) {
    return (to - from) / 1e9;
  }

  /**
   * Records of this run: completed rows (no owner) of the JDBC table, or record keys under the
   * Redis prefix.
   */
  private long storedRecords() throws SQLException {
    if (storeSpec.isJdbc()) {
      try (ResultSet rs =
          sql.executeQuery("SELECT count(*) FROM " + records + " WHERE owner IS NULL")) {
        rs.next();
        return rs.getLong(1);
      }
    }
    RedissonClient redis = storeSpec.redisson(Duration.ofSeconds(10), 1, 3);
    try {
      // record names are <prefix>{tag}<scope digest>:<key>; released-owner sets carry '#'
      return redisKeys(redis).stream().filter(k -> k.indexOf('#') < 0).count();
    } finally {
      redis.shutdown();
    }
  }

  /**
   * The Redis keys under this run's prefix, scanned 10,000 at a time (a shared Redis may hold many
   * keys of other tests).
   */
  private List<String> redisKeys(RedissonClient redis) {
    try (Stream<String> keys = redis.getKeys().getKeysStreamByPattern(records + "*", 10_000)) {
      return keys.toList();
    }
  }

  Path dir() {
    return dir;
  }

  /** Drops the run's effect table and its records (JDBC tables or Redis keys). */
  @Override
  public void close() throws Exception {
    try (db;
        sql) {
      sql.execute("DROP TABLE IF EXISTS " + effects);
      if (storeSpec.isJdbc()) {
        for (String t : List.of(records, records + "_scope", records + "_meta")) {
          sql.execute("DROP TABLE IF EXISTS " + t);
        }
      } else {
        RedissonClient redis = storeSpec.redisson(Duration.ofSeconds(10), 1, 3);
        try {
          List<String> keys = redisKeys(redis);
          if (!keys.isEmpty()) {
            redis.getKeys().delete(keys.toArray(String[]::new));
          }
        } finally {
          redis.shutdown();
        }
      }
    }
  }
}
