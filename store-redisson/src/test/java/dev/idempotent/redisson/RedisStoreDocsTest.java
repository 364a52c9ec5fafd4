package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The code of docs/stores/redis.md between its markers, run on the test Redis ({@code
 * IDEMPOTENT_REDIS_URL}): the page shows this region (checked by the examples module's {@code
 * DocsSnippetsTest}).
 */
class RedisStoreDocsTest {
  @Test
  void theStoreOfTheDocsReplays() {
    Config config = new Config();
    config.useSingleServer().setAddress(RedisTestEnvironment.standaloneUrl());
    RedissonClient redissonClient = Redisson.create(config);
    try {
      // spotless:off
      // docs/stores/redis.md: builder (begin)
      IdempotencyStore store = RedissonIdempotencyStore.builder(redissonClient)
          .keyPrefix("orders:")                        // default "idem:"
          .syncReplicas(1, Duration.ofMillis(500))     // optional: WAIT for a replica after each write
          .build();
      // docs/stores/redis.md: builder (end)
      // spotless:on

      Idempotency idem =
          Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder("docs.redis." + UUID.randomUUID())
              .resultType(Integer.class)
              .build();
      AtomicInteger runs = new AtomicInteger();
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(runs).hasValue(1);
      idem.delete("", policy.scope(), "k1");
    } finally {
      redissonClient.shutdown();
    }
  }

  @Test
  void theNearCacheOfTheDocsReplaysWithoutRedis() {
    Config redisConfig = new Config();
    redisConfig.useSingleServer().setAddress(RedisTestEnvironment.standaloneUrl());
    RedissonClient redissonClient = Redisson.create(redisConfig);
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("docs.near-cache." + UUID.randomUUID())
            .resultType(Integer.class)
            .build();
    AtomicInteger runs = new AtomicInteger();
    Idempotency idem;
    try {
      // spotless:off
      // docs/near-cache.md: builder (begin)
      IdempotencyConfig config = IdempotencyConfig.builder()
          .defaultStore(RedissonIdempotencyStore.builder(redissonClient).build())
          .nearCache(10_000)                                  // 0 = off
          .nearCacheExpireAfter(Duration.ofSeconds(30))       // optional
          .build();
      // docs/near-cache.md: builder (end)
      // spotless:on
      idem = Idempotency.create(config);
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(idem.call(policy, "k1", runs::incrementAndGet))
          .as("replayed by Redis, then kept")
          .isEqualTo(1);
      assertThat(idem.call(policy, "k2", runs::incrementAndGet)).isEqualTo(2);
      assertThat(idem.call(policy, "k2", runs::incrementAndGet)).isEqualTo(2);
      // after k2 is kept: the announcement of this delete reaches the cache when it will, and a
      // replay whose answer it overtakes is not kept (the cache cannot tell which came first)
      idem.delete("", policy.scope(), "k1");
    } finally {
      redissonClient.shutdown();
    }
    // Redis is out of reach for this configuration now: the kept outcome is still replayed, from
    // memory
    assertThat(idem.call(policy, "k2", runs::incrementAndGet)).isEqualTo(2);
    assertThat(runs).hasValue(2);
  }
}
