package dev.idempotent.redisson;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.NonBlockingPathCheck;
import org.junit.jupiter.api.AfterEach;
import org.redisson.api.RedissonClient;

/**
 * BlockHound on a real Redis: the Redis store's non-blocking path (Redisson's asynchronous API,
 * sharded pub/sub for waits) never blocks a Reactor thread nor one of Redisson's Netty event loops.
 */
class RedissonBlockHoundTest extends NonBlockingPathCheck {
  private RedissonClient client;

  @Override
  protected IdempotencyStore createStore() {
    client = RedisTestEnvironment.client(1, 4);
    return RedissonIdempotencyStore.builder(client).build();
  }

  @AfterEach
  void shutdown() {
    if (client != null) {
      client.shutdown();
    }
  }
}
