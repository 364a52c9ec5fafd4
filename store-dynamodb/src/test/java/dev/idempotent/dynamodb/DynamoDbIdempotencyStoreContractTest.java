package dev.idempotent.dynamodb;

import dev.idempotent.dynamodb.internal.RecordItem;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.IdempotencyStoreContract;

/** The contract kit through the blocking client, against {@code IDEMPOTENT_DYNAMODB_URL}. */
class DynamoDbIdempotencyStoreContractTest extends IdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return DynamoDbTestEnvironment.storeOn("idem-tck").build();
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }

  /** DynamoDB's item limit, less room for the other attributes. */
  @Override
  protected int largestOutcome() {
    return RecordItem.MAX_ITEM_BYTES - 1024;
  }
}
