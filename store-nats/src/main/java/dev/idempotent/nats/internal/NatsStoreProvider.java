package dev.idempotent.nats.internal;

import static dev.idempotent.nats.NatsStoreSettings.TIMEOUT;
import static dev.idempotent.nats.NatsStoreSettings.URL;

import dev.idempotent.nats.NatsIdempotencyStore;
import dev.idempotent.nats.NatsStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link NatsIdempotencyStore} from its settings ({@link NatsStoreSettings}, {@code
 * idempotent.store=nats}). The store owns the connection it opens and closes it on close.
 */
public final class NatsStoreProvider implements IdempotencyStoreProvider {
  private static final Logger log = LoggerFactory.getLogger(NatsStoreProvider.class);

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public List<Setting<?>> settings() {
    return NatsStoreSettings.ALL;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    NatsStoreSettings.ALL.forEach(settings::value); // each checked before a connection is opened
    String url = settings.value(URL);
    if (url == null) {
      throw new IllegalArgumentException(
          "missing setting "
              + URL.name()
              + ": set it to nats://host:port of the server in idempotent.properties or as -D"
              + URL.name()
              + "=...");
    }
    Duration timeout = settings.value(TIMEOUT);
    Connection connection;
    try {
      connection =
          Nats.connect(
              new Options.Builder()
                  .server(url)
                  .connectionTimeout(timeout)
                  .connectionName("idempotent")
                  .build());
    } catch (IOException e) {
      throw new IllegalStateException("cannot connect to NATS at " + where(url) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while connecting to NATS at " + where(url), e);
    }
    try {
      NatsIdempotencyStore store =
          NatsStoreSettings.builder(connection, settings).closeConnectionOnClose(true).build();
      log.info("Idempotency records in NATS at {} ({})", where(url), store);
      return store;
    } catch (RuntimeException e) {
      try {
        connection.close();
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
  }

  /** The URL without user and password. */
  static String where(String url) {
    return url.replaceAll("//[^@/,]*@", "//");
  }
}
