package dev.idempotent.dynamodb;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.NonBlockingPathCheck;

/**
 * BlockHound against {@code IDEMPOTENT_DYNAMODB_URL}: the store's non-blocking path (the
 * asynchronous client on Netty, waits polled from the store's timer) never blocks a Reactor thread
 * nor one of the SDK's Netty event loops.
 */
class DynamoDbBlockHoundTest extends NonBlockingPathCheck {
  /**
   * On the shared clients, which stay open between the checks: closing a Netty client blocks on
   * Netty's global event executor, which BlockHound's Netty integration rightly flags, and that is
   * not the store's path.
   */
  @Override
  protected IdempotencyStore createStore() {
    return DynamoDbTestEnvironment.storeOn("idem-blockhound").build();
  }
}
