package dev.idempotent.nats;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.NonBlockingPathCheck;
import io.nats.client.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * BlockHound on a real NATS server: the store's non-blocking path (requests and publishes on the
 * connection, waits on a subscription) never blocks a Reactor thread.
 */
class NatsBlockHoundTest extends NonBlockingPathCheck {
  private static Connection connection;
  private static final String BUCKET = NatsTestEnvironment.bucketName("blockhound");

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
}
