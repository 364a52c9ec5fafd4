package dev.idempotent.redisson;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.AsyncIdempotencyStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

/**
 * The contract kit through the Redis store's non-blocking face (Redisson's asynchronous API),
 * against a standalone Redis ({@code IDEMPOTENT_REDIS_URL}).
 */
class RedissonAsyncContractTest extends AsyncIdempotencyStoreContract {
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
    return RedissonIdempotencyStore.builder(client).keyPrefix("idem-tck-async:").build();
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
