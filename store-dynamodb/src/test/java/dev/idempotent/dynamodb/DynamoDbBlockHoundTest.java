package dev.idempotent.dynamodb;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.NonBlockingPathCheck;

/**
 * BlockHound against {@code IDEMPOTENT_DYNAMODB_URL}: the store's non-blocking path (the
 * asynchronous client on Netty, waits polled from the store's timer) never blocks a Reactor thread
 * nor one of the SDK's Netty event loops.
 */
class DynamoDbBlockHoundTest extends NonBlockingPathCheck {
  @Override
  protected IdempotencyStore createStore() {
    return DynamoDbIdempotencyStore.builder()
        .endpoint(DynamoDbTestEnvironment.endpoint())
        .region(software.amazon.awssdk.regions.Region.US_EAST_1)
        .credentials(DynamoDbTestEnvironment.credentials())
        .table("idem-blockhound")
        .createTable(true)
        .maxClockSkew(DynamoDbTestEnvironment.TEST_CLOCK_SKEW)
        .timeout(DynamoDbTestEnvironment.TEST_TIMEOUT)
        .build();
  }
}
