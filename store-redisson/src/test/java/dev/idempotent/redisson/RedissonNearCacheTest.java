package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.redisson.internal.DeleteAnnouncements;
import dev.idempotent.spi.RecordKey;
import java.io.Serializable;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The near cache over the Redis store: two instances (two clients) on one Redis, deletes announced
 * between them.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedissonNearCacheTest {
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("orders.submit")
          .resultType(Receipt.class)
          .ttl(Duration.ofMinutes(10))
          .build();

  record Receipt(String key, int run) implements Serializable {}

  private final String prefix = "idem-near-" + UUID.randomUUID() + ":";
  private final AtomicInteger runs = new AtomicInteger();
  private RedissonClient clientA;
  private RedissonClient clientB;
  private RedisServerProcess server;

  @AfterEach
  void tearDown() throws InterruptedException {
    Idempotency.reset();
    for (RedissonClient c : new RedissonClient[] {clientA, clientB}) {
      if (c != null) {
        c.shutdown();
      }
    }
    if (server != null) {
      server.close();
    }
  }

  private static RedissonClient client(String url) {
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress(url)
        .setConnectionMinimumIdleSize(2)
        .setRetryAttempts(1)
        .setRetryDelay(attempt -> Duration.ofMillis(200))
        .setTimeout(2000);
    return Redisson.create(config);
  }

  private Idempotency instance(RedissonIdempotencyStore store) {
    return Idempotency.create(
        IdempotencyConfig.builder()
            .defaultStore(store)
            .nearCache(100)
            .nearCacheExpireAfter(Duration.ofMinutes(10))
            .build());
  }

  private RedissonIdempotencyStore store(RedissonClient client) {
    return RedissonIdempotencyStore.builder(client).keyPrefix(prefix).build();
  }

  private Receipt submit(Idempotency idem, String key) throws Exception {
    return idem.execute(POLICY, key, () -> new Receipt(key, runs.incrementAndGet()));
  }

  /**
   * Calls {@code key} until the method runs again instead of replaying {@code replayed}; returns
   * that call's run.
   */
  private Receipt untilItRunsAgain(Idempotency idem, String key, Receipt replayed, Duration limit)
      throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      Receipt r;
      try {
        r = submit(idem, key);
      } catch (RuntimeException reconnecting) {
        r = null;
      }
      if (r != null && !r.equals(replayed)) {
        return r;
      }
      assertThat(System.nanoTime() - deadline)
          .as("the method runs again within " + limit)
          .isNegative();
      Thread.sleep(10);
    }
  }

  private void loseInRedis(RedissonIdempotencyStore store, String key) {
    // as a failover may lose it: behind the store's back
    clientA.getKeys().delete(store.names().recordName(RecordKey.of(POLICY.scope(), key)));
  }

  @Test
  void anAdministrativeDeleteInOneInstanceMakesTheNextCallInTheOtherRunAgain() throws Exception {
    String url = RedisTestEnvironment.standaloneUrl();
    clientA = client(url);
    clientB = client(url);
    RedissonIdempotencyStore storeA = store(clientA);
    Idempotency a = instance(storeA);
    Idempotency b = instance(store(clientB));
    Receipt first = submit(a, "k1");
    Receipt other = submit(a, "k2");
    assertThat(submit(b, "k1")).isEqualTo(first);
    assertThat(submit(b, "k2")).isEqualTo(other);

    assertThat(a.delete("", POLICY.scope(), "k1")).isTrue();

    Receipt again = untilItRunsAgain(b, "k1", first, Duration.ofSeconds(10));
    assertThat(again.run()).as("the method ran once more, in the other instance").isEqualTo(3);
    assertThat(submit(a, "k1")).as("and the first instance replays that").isEqualTo(again);
    loseInRedis(storeA, "k2");
    assertThat(submit(b, "k2"))
        .as("the other key is still replayed from b's memory")
        .isEqualTo(other);
    assertThat(runs.get()).isEqualTo(3);
  }

  @Test
  void aRecordLostInRedisIsStillReplayedFromTheCache() throws Exception {
    clientA = client(RedisTestEnvironment.standaloneUrl());
    RedissonIdempotencyStore store = store(clientA);
    Idempotency a = instance(store);
    Receipt first = submit(a, "k1");
    assertThat(submit(a, "k1"))
        .as("the first replay reads Redis, and keeps the record")
        .isEqualTo(first);

    loseInRedis(store, "k1");

    assertThat(submit(a, "k1")).as("answered from memory, not from Redis").isEqualTo(first);
    assertThat(runs.get()).isEqualTo(1);
    assertThat(
            Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build())
                .execute(POLICY, "k1", () -> new Receipt("k1", runs.incrementAndGet()))
                .run())
        .as("without the cache the lost record runs again")
        .isEqualTo(2);
  }

  @Test
  void aLostSubscriptionDropsEveryEntryWhenItIsBack() throws Exception {
    server = RedisServerProcess.launch();
    clientA = client(server.url());
    Idempotency a = instance(store(clientA));
    Receipt first = submit(a, "k1");
    assertThat(submit(a, "k1")).isEqualTo(first);

    server.stop(); // the records are lost (no persistence), and so would be announcements published
    // meanwhile
    server.start();

    assertThat(untilItRunsAgain(a, "k1", first, Duration.ofSeconds(30)).run())
        .as("the entry was dropped when the subscription came back, long before its 10 min")
        .isEqualTo(2);
  }

  @Test
  void anAnnouncementNamesScopeAndKeyWhateverTheyHold() {
    RecordKey key = RecordKey.of("a:b:7", "12:x:y");
    String message = key.scope().length() + ":" + key.scope() + key.key();
    assertThat(DeleteAnnouncements.announced(message)).isEqualTo(key);
    assertThat(DeleteAnnouncements.announced("garbage")).isNull();
    assertThat(DeleteAnnouncements.announced("99:short")).isNull();
  }
}
