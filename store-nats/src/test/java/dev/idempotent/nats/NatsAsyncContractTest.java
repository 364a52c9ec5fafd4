package dev.idempotent.nats;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.AsyncIdempotencyStoreContract;
import io.nats.client.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract kit against NATS JetStream ({@code IDEMPOTENT_JETSTREAM_URL}), non-blocking face.
 */
class NatsAsyncContractTest extends AsyncIdempotencyStoreContract {
  private static Connection connection;
  private static final String BUCKET = NatsTestEnvironment.bucketName("tck-async");

  @BeforeAll
  static void connect() {
    connection = NatsTestEnvironment.connect();
  }

  @AfterAll
  static void disconnect() {
    if (connection != null) {
      NatsTestEnvironment.deleteBucket(connection, BUCKET);
    }
    NatsTestEnvironment.close(connection);
  }

  @Override
  protected IdempotencyStore createStore() {
    return NatsIdempotencyStore.builder(connection).bucket(BUCKET).build();
  }

  @Override
  protected boolean notifiesWaiters() {
    return true;
  }
}
