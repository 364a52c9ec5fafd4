package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.redisson.internal.RedissonStoreProvider;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failures of a test-owned {@code redis-server}: stopped mid-run, restarted, scripts flushed, wrong
 * password, nothing listening; with the bounded timeouts of the auto-configured store.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonFaultTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /**
   * One retry: two command timeouts, two retry intervals, and scheduling slack on a busy machine.
   */
  private static final Duration FAILS_WITHIN = TIMEOUT.multipliedBy(2).plusSeconds(2);

  private static final Duration LEASE = Duration.ofMinutes(1);

  private RedisServerProcess server;
  private IdempotencyStore store;
  private final String scope = "fault-" + UUID.randomUUID();

  @BeforeEach
  void startServer() throws Exception {
    RedisTestEnvironment.redisServer();
  }

  @AfterEach
  void stopAll() throws Exception {
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static IdempotencyStore storeAt(String url, String password) {
    Map<String, String> settings = new HashMap<>();
    settings.put(dev.idempotent.redisson.RedissonStoreSettings.ADDRESS.name(), url);
    settings.put(
        dev.idempotent.redisson.RedissonStoreSettings.TIMEOUT.name(), TIMEOUT.toMillis() + "ms");
    if (password != null) {
      settings.put(dev.idempotent.redisson.RedissonStoreSettings.PASSWORD.name(), password);
    }
    return new RedissonStoreProvider().create(dev.idempotent.spi.StoreSettings.of(settings));
  }

  @Test
  void serverStoppedMidRunFailsWithinTheTimeoutAndRecoversWhenItIsBack() throws Exception {
    server = RedisServerProcess.launch();
    store = storeAt(server.url(), null);
    RecordKey before = RecordKey.of(scope, "before");
    assertThat(store.claim(before, "o1", null, LEASE).isAcquired()).isTrue();

    server.stop();
    long start = System.nanoTime();
    assertThatThrownBy(() -> store.claim(RecordKey.of(scope, "during"), "o2", null, LEASE))
        .isInstanceOf(RuntimeException.class);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as("claim against a stopped server failed after").isLessThan(FAILS_WITHIN);

    server.start(); // empty again: no persistence, and no scripts (NOSCRIPT on the next call)
    RecordKey after = RecordKey.of(scope, "after");
    ClaimResult result = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (result == null) {
      try {
        result = store.claim(after, "o3", "fp", LEASE);
      } catch (RuntimeException e) {
        assertThat(System.nanoTime() - deadline)
            .as("store works again within 20 s of the restart: " + e)
            .isNegative();
        Thread.sleep(200);
      }
    }
    assertThat(result.isAcquired()).isTrue();
    assertThat(store.complete(after, "o3", new byte[] {9}, LEASE)).isTrue();
    assertThat(store.read(after).map(IdempotencyRecord::outcome))
        .hasValueSatisfying(o -> assertThat(o).containsExactly(9));
  }

  @Test
  void hungServerFailsWithinTheTimeoutAndRecoversWhenItRunsAgain() throws Exception {
    server = RedisServerProcess.launch();
    store = storeAt(server.url(), null);
    RecordKey key = RecordKey.of(scope, "hung");
    assertThat(store.claim(key, "o1", null, LEASE).isAcquired()).isTrue();

    server.pause();
    long start = System.nanoTime();
    try {
      assertThatThrownBy(() -> store.complete(key, "o1", new byte[] {1}, LEASE))
          .isInstanceOf(RuntimeException.class)
          .hasMessageContaining(Integer.toString(server.port()));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took)
          .as("complete against a hung server failed after")
          .isGreaterThanOrEqualTo(TIMEOUT)
          .isLessThan(FAILS_WITHIN);
    } finally {
      server.resume();
    }
    // the complete may have been applied when the server woke up; either way the record is
    // consistent
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        IdempotencyRecord record = store.read(key).orElseThrow();
        if (record.isCompleted()) {
          assertThat(record.outcome()).containsExactly(1);
        } else {
          assertThat(record.ownerToken()).isEqualTo("o1");
        }
        break;
      } catch (RuntimeException e) {
        assertThat(System.nanoTime() - deadline)
            .as("store works again within 20 s: " + e)
            .isNegative();
        Thread.sleep(200);
      }
    }
  }

  @Test
  void scriptFlushIsHealedByLoadingTheScriptAgain() throws Exception {
    server = RedisServerProcess.launch();
    store = storeAt(server.url(), null);
    RecordKey key = RecordKey.of(scope, "flushed");
    assertThat(store.claim(key, "o1", null, LEASE).isAcquired()).isTrue();

    assertThat(server.cli("SCRIPT", "FLUSH")).contains("OK");
    assertThat(
            server.cli(
                "SCRIPT", "EXISTS", dev.idempotent.redisson.internal.RecordScript.COMPLETE.sha()))
        .as("the script is gone")
        .contains("0");

    assertThat(store.renew(key, "o1", LEASE)).isTrue();
    assertThat(store.complete(key, "o1", new byte[] {1, 2}, LEASE)).isTrue();
    server.cli("SCRIPT", "FLUSH");
    assertThat(store.read(key)).isPresent();
    server.cli("SCRIPT", "FLUSH");
    assertThat(store.claim(key, "o2", null, LEASE).existing().outcome()).containsExactly(1, 2);
  }

  @Test
  void wrongPasswordFailsQuicklyNamingTheAddressButNotThePassword() throws Exception {
    server = RedisServerProcess.launch("--requirepass", "right-Secret-4711");
    String wrong = "wrong-Secret-0815";
    long start = System.nanoTime();
    Throwable error = null;
    try {
      store = storeAt(server.url(), wrong);
      store.claim(RecordKey.of(scope, "k"), "o", null, LEASE);
    } catch (RuntimeException e) {
      error = e;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(error)
        .as("creating a store with a wrong password, or its first call, fails")
        .isNotNull();
    assertThat(took)
        .as("failing with a wrong password took")
        .isLessThan(FAILS_WITHIN.plusSeconds(2));
    assertThat(error.getMessage()).contains(server.address());
    for (Throwable t = error; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage()))
          .as("message of %s", t.getClass())
          .doesNotContain(wrong)
          .doesNotContain("right-Secret-4711");
    }

    store = storeAt(server.url(), "right-Secret-4711");
    assertThat(store.claim(RecordKey.of(scope, "k"), "o", null, LEASE).isAcquired()).isTrue();
  }

  /**
   * The store notifies waiters with sharded pub/sub (Redis 7.0): a server without it (simulated
   * here by hiding {@code PUBSUB}, whose {@code SHARDNUMSUB} the check asks, as Redis 6 does not
   * know that subcommand) is refused when the store is built, naming the version it needs.
   */
  @Test
  void aRedisWithoutShardedPubSubIsRefusedWhenTheStoreIsBuilt() throws Exception {
    server = RedisServerProcess.launch("--rename-command", "PUBSUB", "pubsub-hidden-by-the-test");
    assertThatThrownBy(() -> store = storeAt(server.url(), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(server.address())
        .hasMessageContaining("sharded pub/sub")
        .hasMessageContaining("Redis 7.0 or later");
  }

  @Test
  void nothingListeningFailsQuicklyNamingTheAddress() {
    int port = RedisServerProcess.freePort();
    long start = System.nanoTime();
    assertThatThrownBy(() -> store = storeAt("redis://127.0.0.1:" + port, "pw-never-shown"))
        .hasMessageContaining("127.0.0.1:" + port)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pw-never-shown"));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAILS_WITHIN.plusSeconds(2));
  }

  @Test
  void awkwardKeysAndAOneMebibyteOutcomeRoundTrip() throws Exception {
    server = RedisServerProcess.launch();
    store = storeAt(server.url(), null);
    byte[] outcome = new byte[1024 * 1024 + 7];
    new Random(7).nextBytes(outcome);
    String[] keys = {
      "with space", "ünïcødé ключ 键 😀", "{tag}", "}{", "a{b}c", "{", "}", "a\r\nb", "x".repeat(512)
    };
    for (String k : keys) {
      RecordKey key = RecordKey.of(scope + " {scope}", k).fittedTo(store.maxKeyLength());
      String owner = "owner-" + k.hashCode();
      assertThat(store.claim(key, owner, "fp", LEASE).isAcquired()).as("claim of %s", key).isTrue();
      assertThat(store.complete(key, owner, outcome, LEASE)).isTrue();
      IdempotencyRecord read = store.read(key).orElseThrow();
      assertThat(Arrays.equals(read.outcome(), outcome)).as("outcome of %s", key).isTrue();
      assertThat(read.key()).isEqualTo(key);
    }
    assertThat(server.cli("DBSIZE").trim())
        .as("one record per key, and nothing else")
        .isEqualTo(Integer.toString(keys.length));
  }
}
