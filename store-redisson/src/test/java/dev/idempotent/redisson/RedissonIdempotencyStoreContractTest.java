package dev.idempotent.redisson;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The contract kit against a standalone Redis ({@code IDEMPOTENT_REDIS_URL}). */
class RedissonIdempotencyStoreContractTest extends IdempotencyStoreContract {
  private static RedissonClient client;

  @BeforeAll
  static void connect() {
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress(RedisTestEnvironment.standaloneUrl())
        .setConnectionMinimumIdleSize(4)
        .setConnectionPoolSize(32);
    client = Redisson.create(config);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  @Override
  protected IdempotencyStore createStore() {
    return RedissonIdempotencyStore.builder(client).keyPrefix("idem-tck:").build();
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
