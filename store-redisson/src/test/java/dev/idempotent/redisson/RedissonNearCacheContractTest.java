package dev.idempotent.redisson;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

/**
 * The contract kit against the Redis store behind a near cache, as a configuration with a near
 * cache uses it.
 */
class RedissonNearCacheContractTest extends IdempotencyStoreContract {
  private static RedissonClient client;

  @BeforeAll
  static void connect() {
    client = RedisTestEnvironment.client(4, 32);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  @Override
  protected IdempotencyStore createStore() {
    IdempotencyStore redis =
        RedissonIdempotencyStore.builder(client).keyPrefix("idem-tck-near:").build();
    IdempotencyStore cached =
        IdempotencyConfig.builder().defaultStore(redis).nearCache(1000).build().defaultStore();
    if (cached == redis) {
      throw new IllegalStateException(
          "the configuration did not put a near cache in front of the Redis store");
    }
    return cached;
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
