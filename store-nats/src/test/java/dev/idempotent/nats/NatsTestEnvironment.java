package dev.idempotent.nats;

import dev.idempotent.tck.TestBackends;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Where the tests find NATS with JetStream: {@code IDEMPOTENT_JETSTREAM_URL}, else the local server
 * on 127.0.0.1:4222 when it answers, else the test fails (when {@code CI=true}) or is skipped with
 * a {@code SKIPPED} console line naming the variable (see {@link TestBackends}). Each test class
 * uses buckets of its own, named at random, and deletes them.
 */
final class NatsTestEnvironment {
  static final String URL_VARIABLE = "IDEMPOTENT_JETSTREAM_URL";
  private static final String LOCAL_URL = "nats://127.0.0.1:4222";

  private NatsTestEnvironment() {}

  static String url() {
    Optional<String> url = TestBackends.configuredOrLocal(URL_VARIABLE, LOCAL_URL, 4222);
    if (url.isEmpty()) {
      TestBackends.unavailable(
          URL_VARIABLE + " is not set and nothing answers on 127.0.0.1:4222",
          "start nats-server -a 127.0.0.1 -p 4222 -js or set " + URL_VARIABLE + "=" + LOCAL_URL);
    }
    return url.get();
  }

  static Connection connect() {
    try {
      return Nats.connect(
          new Options.Builder().server(url()).connectionTimeout(Duration.ofSeconds(5)).build());
    } catch (IOException e) {
      throw new IllegalStateException("cannot connect to NATS at " + url(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A fresh bucket name. */
  static String bucketName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Deletes {@code bucket} if it exists. */
  static void deleteBucket(Connection connection, String bucket) {
    try {
      connection.keyValueManagement().delete(bucket);
    } catch (JetStreamApiException e) {
      // not there
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static void close(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
