package dev.idempotent.dynamodb.internal;

import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotent.dynamodb.DynamoDbStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link DynamoDbIdempotencyStore} from its settings ({@link DynamoDbStoreSettings},
 * {@code idempotent.store=dynamodb}). The store owns the clients it makes and closes them on close;
 * credentials come from the SDK's default chain (environment, system properties, profile, the
 * instance's or task's role), never from these settings.
 */
public final class DynamoDbStoreProvider implements IdempotencyStoreProvider {
  private static final Logger log = LoggerFactory.getLogger(DynamoDbStoreProvider.class);

  @Override
  public String name() {
    return "dynamodb";
  }

  @Override
  public List<Setting<?>> settings() {
    return DynamoDbStoreSettings.ALL;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    DynamoDbStoreSettings.ALL.forEach(settings::value);
    DynamoDbIdempotencyStore store = DynamoDbStoreSettings.builder(settings).build();
    String endpoint = settings.value(DynamoDbStoreSettings.ENDPOINT);
    log.info(
        "Idempotency records in the DynamoDB table {}{}",
        store.table(),
        endpoint == null ? "" : " at " + endpoint);
    return store;
  }
}
