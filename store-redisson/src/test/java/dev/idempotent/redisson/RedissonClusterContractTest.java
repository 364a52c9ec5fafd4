package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.tck.IdempotencyStoreContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
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
          m.cli("--scan", "--pattern", "idem:{*}" + RecordNames.scopeDigest(scope()) + ":spread-*");
      assertThat(keys.lines().count())
          .as("records of one scope on master %s", m.address())
          .isPositive();
    }
  }

  @Test
  void aRecordItsChannelAndItsReleasedOwnersShareTheSlotOfItsScopeDigestAndKey() throws Exception {
    RecordNames names = new RecordNames(RedissonIdempotencyStore.DEFAULT_KEY_PREFIX);
    RedisServerProcess any = masters.get(0);
    for (int i = 0; i < 20; i++) {
      String userKey = "slot-" + i + "-{x}";
      String name = names.recordName(RecordKey.of(scope(), userKey));
      String slot = any.cli("CLUSTER", "KEYSLOT", name).trim();
      assertThat(any.cli("CLUSTER", "KEYSLOT", RecordNames.channelOf(name)).trim())
          .as("slot of the channel of %s", name)
          .isEqualTo(slot);
      assertThat(any.cli("CLUSTER", "KEYSLOT", RecordNames.releasedOf(name)).trim())
          .as("slot of the released owners of %s", name)
          .isEqualTo(slot);
      String braceless = RecordNames.scopeDigest(scope()) + ":slot-" + i;
      assertThat(
              any.cli("CLUSTER", "KEYSLOT", names.recordName(RecordKey.of(scope(), "slot-" + i)))
                  .trim())
          .as("the tag's slot is the slot Redis gives %s", braceless)
          .isEqualTo(any.cli("CLUSTER", "KEYSLOT", braceless).trim());
    }
  }

  /**
   * A waiter subscribes to the record's sharded channel on the one master that holds the record,
   * and the completion notifies it with one SPUBLISH there; no master runs a PUBLISH (which a
   * cluster would broadcast to every node).
   */
  @Test
  void aWaiterIsNotifiedOnTheRecordsShardAloneWithoutABroadcast() throws Exception {
    RecordKey key = RecordKey.of(scope(), "sharded");
    String name = new RecordNames(RedissonIdempotencyStore.DEFAULT_KEY_PREFIX).recordName(key);
    String channel = RecordNames.channelOf(name);
    String owner = owner();
    assertThat(store().claim(key, owner, null, Duration.ofMinutes(1)).isAcquired()).isTrue();
    RedisServerProcess holder = null;
    for (RedisServerProcess m : masters) {
      if (m.cli("EXISTS", name).trim().equals("1")) {
        holder = m;
      }
    }
    assertThat(holder).as("the master holding %s", name).isNotNull();
    Map<RedisServerProcess, long[]> before = new HashMap<>();
    for (RedisServerProcess m : masters) {
      before.put(m, publishes(m));
    }

    CompletableFuture<Void> waiting =
        ((AsyncIdempotencyStore) store())
            .awaitChangeAsync(key, Duration.ofSeconds(20))
            .toCompletableFuture();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!holder.cli("PUBSUB", "SHARDCHANNELS", channel).contains(channel)) {
      assertThat(System.nanoTime() - deadline).as("subscribed within 10 s").isNegative();
      Thread.sleep(20);
    }
    for (RedisServerProcess m : masters) {
      if (m != holder) {
        assertThat(m.cli("PUBSUB", "SHARDCHANNELS", channel))
            .as("sharded channels on %s", m.address())
            .doesNotContain(channel);
      }
    }
    assertThat(waiting).isNotDone();
    long start = System.nanoTime();
    while (client.<byte[]>getBucket(name, ByteArrayCodec.INSTANCE).get()[1] != 1) {
      assertThat(System.nanoTime() - start).as("flagged within 10 s").isLessThan(10_000_000_000L);
      Thread.sleep(20);
    }
    assertThat(store().complete(key, owner, new byte[] {1}, Duration.ofMinutes(1))).isTrue();
    waiting.get(5, TimeUnit.SECONDS);

    for (RedisServerProcess m : masters) {
      long[] now = publishes(m);
      assertThat(now[0] - before.get(m)[0]).as("PUBLISH on %s", m.address()).isZero();
      assertThat(now[1] - before.get(m)[1])
          .as("SPUBLISH on %s", m.address())
          .isEqualTo(m == holder ? 1 : 0);
    }
  }

  /** The calls of PUBLISH and SPUBLISH the master has run. */
  private static long[] publishes(RedisServerProcess m) throws Exception {
    return new long[] {m.commandCalls("publish"), m.commandCalls("spublish")};
  }
}
