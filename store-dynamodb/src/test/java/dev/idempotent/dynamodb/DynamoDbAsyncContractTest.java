package dev.idempotent.dynamodb;

import dev.idempotent.dynamodb.internal.RecordItem;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.AsyncIdempotencyStoreContract;

/**
 * The contract kit through the store's non-blocking face (the asynchronous client), against {@code
 * IDEMPOTENT_DYNAMODB_URL}.
 */
class DynamoDbAsyncContractTest extends AsyncIdempotencyStoreContract {
  @Override
  protected IdempotencyStore createStore() {
    return DynamoDbTestEnvironment.storeOn("idem-tck-async").build();
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
