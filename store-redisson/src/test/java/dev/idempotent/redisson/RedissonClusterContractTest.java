package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.redisson.internal.RecordLayout;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.tck.IdempotencyStoreContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The contract kit against a three-master Redis Cluster of test-owned {@code redis-server}
 * processes on 127.0.0.1, through a Redisson cluster client; plus a check that one scope's keys
 * spread over all masters.
 */
class RedissonClusterContractTest extends IdempotencyStoreContract {
  private static final List<RedisServerProcess> masters = new ArrayList<>();
  private static RedissonClient client;

  @BeforeAll
  static void startCluster() throws Exception {
    RedisTestEnvironment.redisServer();
    RedisTestEnvironment.redisCli();
    for (int i = 0; i < 3; i++) {
      masters.add(
          RedisServerProcess.launch(
              "--cluster-enabled",
              "yes",
              "--cluster-config-file",
              "nodes.conf",
              "--cluster-node-timeout",
              "2000"));
    }
    List<String> create = new ArrayList<>(List.of("--cluster", "create"));
    masters.forEach(m -> create.add(m.address()));
    create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    String out = masters.get(0).cli(create.toArray(String[]::new));
    assertThat(out).as("redis-cli --cluster create").contains("All 16384 slots covered");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (RedisServerProcess m : masters) {
      while (!m.cli("cluster", "info").contains("cluster_state:ok")) {
        assertThat(System.nanoTime() - deadline)
            .as("cluster_state:ok on %s within 30 s", m.address())
            .isNegative();
        Thread.sleep(100);
      }
    }
    Config config = new Config();
    config
        .useClusterServers()
        .addNodeAddress(masters.get(0).url())
        .setTimeout(3000)
        .setMasterConnectionMinimumIdleSize(2)
        .setSlaveConnectionMinimumIdleSize(0);
    client = Redisson.create(config);
  }

  @AfterAll
  static void stopCluster() throws InterruptedException {
    if (client != null) {
      client.shutdown();
    }
    for (RedisServerProcess m : masters) {
      m.close();
    }
    masters.clear();
  }

  @Override
  protected IdempotencyStore createStore() {
    return RedissonIdempotencyStore.builder(client).build();
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }

  @Test
  void keysOfOneScopeSpreadOverAllMasters() throws Exception {
    for (int i = 0; i < 60; i++) {
      RecordKey key = RecordKey.of(scope(), "spread-" + i);
      assertThat(store().claim(key, owner(), null, Duration.ofMinutes(1)).isAcquired()).isTrue();
    }
    for (RedisServerProcess m : masters) {
      String keys =
          m.cli(
              "--scan", "--pattern", "idem:{*}" + RecordLayout.scopeDigest(scope()) + ":spread-*");
      assertThat(keys.lines().count())
          .as("records of one scope on master %s", m.address())
          .isPositive();
    }
  }

  @Test
  void aRecordAndItsLegacyNameShareTheirSlotSoLegacyRecordsAreReadInTheCluster() throws Exception {
    RecordLayout layout = new RecordLayout(RedissonIdempotencyStore.DEFAULT_KEY_PREFIX);
    for (int i = 0; i < 20; i++) {
      RecordKey key = RecordKey.of(scope(), "slot-" + i + "-{x}");
      assertThat(masters.get(0).cli("CLUSTER", "KEYSLOT", layout.recordName(key)).trim())
          .as("slot of %s", layout.recordName(key))
          .isEqualTo(masters.get(0).cli("CLUSTER", "KEYSLOT", layout.legacyName(key)).trim());
    }
    LegacyRecords legacy = new LegacyRecords(client, RedissonIdempotencyStore.DEFAULT_KEY_PREFIX);
    RecordKey key = RecordKey.of(scope(), "legacy");
    legacy.completed(key, "old-owner", "fp", new byte[] {3, 1}, Duration.ofMinutes(5));

    IdempotencyRecord replay = store().claim(key, owner(), "fp", Duration.ofMinutes(1)).existing();

    assertThat(replay.outcome()).containsExactly(3, 1);
    assertThat(replay.ownerToken()).isEqualTo("old-owner");
    assertThat(store().delete(key)).isTrue();
    assertThat(store().read(key)).isEmpty();
  }
}
