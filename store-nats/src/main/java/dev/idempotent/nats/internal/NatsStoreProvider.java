package dev.idempotent.nats.internal;

import dev.idempotent.nats.NatsIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link NatsIdempotencyStore} from {@code idempotent.nats.*} settings ({@code
 * idempotent.store=nats}). The store owns the connection it opens and closes it on close.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><td>{@code idempotent.nats.url}</td><td>{@code nats://host:port}, several separated by
 *       commas; required</td></tr>
 *   <tr><td>{@code idempotent.nats.bucket}</td><td>default {@code idempotent}</td></tr>
 *   <tr><td>{@code idempotent.nats.timeout}</td><td>connect and request timeout, default 5s</td></tr>
 *   <tr><td>{@code idempotent.nats.longest-ttl}</td><td>default 24h: the bucket's max age must exceed
 *       it by a minute</td></tr>
 *   <tr><td>{@code idempotent.nats.max-age}</td><td>max age of a bucket the store creates, default
 *       48h</td></tr>
 *   <tr><td>{@code idempotent.nats.replicas}</td><td>replicas of a bucket the store creates,
 *       default 1</td></tr>
 *   <tr><td>{@code idempotent.nats.create-bucket}</td><td>{@code true} (default) or {@code
 *       false}</td></tr>
 * </table>
 */
public final class NatsStoreProvider implements IdempotencyStoreProvider {
  public static final String URL = "idempotent.nats.url";
  public static final String BUCKET = "idempotent.nats.bucket";
  public static final String TIMEOUT = "idempotent.nats.timeout";
  public static final String LONGEST_TTL = "idempotent.nats.longest-ttl";
  public static final String MAX_AGE = "idempotent.nats.max-age";
  public static final String REPLICAS = "idempotent.nats.replicas";
  public static final String CREATE_BUCKET = "idempotent.nats.create-bucket";

  private static final Logger log = LoggerFactory.getLogger(NatsStoreProvider.class);

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    String url = settings.require(URL);
    for (String one : url.split(",")) {
      String u = one.trim();
      if (!u.startsWith("nats://") && !u.startsWith("tls://")) {
        throw new IllegalArgumentException(
            "setting " + URL + " has '" + where(u) + "': write nats://host:port (tls:// for TLS)");
      }
    }
    Duration timeout = settings.duration(TIMEOUT).orElse(NatsIdempotencyStore.DEFAULT_TIMEOUT);
    NatsIdempotencyStore.Builder probe;
    int replicas = intSetting(settings, REPLICAS, 1);
    boolean create = booleanSetting(settings, CREATE_BUCKET, true);
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
      probe =
          NatsIdempotencyStore.builder(connection).closeConnectionOnClose(true).timeout(timeout);
      String bucket = settings.get(BUCKET).orElse(NatsIdempotencyStore.DEFAULT_BUCKET);
      try {
        probe = probe.bucket(bucket);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("setting " + BUCKET + ": " + e.getMessage(), e);
      }
      probe = probe.replicas(replicas).createBucket(create);
      Duration longestTtl = settings.duration(LONGEST_TTL).orElse(null);
      if (longestTtl != null) {
        probe = probe.longestTtl(longestTtl);
      }
      Duration maxAge = settings.duration(MAX_AGE).orElse(null);
      if (maxAge != null) {
        probe = probe.maxAge(maxAge);
      }
      NatsIdempotencyStore store = probe.build();
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

  private static int intSetting(StoreSettings settings, String name, int fallback) {
    String v = settings.get(name).orElse(null);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("setting " + name + " is '" + v + "': write a number", e);
    }
  }

  private static boolean booleanSetting(StoreSettings settings, String name, boolean fallback) {
    String v = settings.get(name).orElse(null);
    if (v == null) {
      return fallback;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException("setting " + name + " is '" + v + "': write true or false");
  }

  /** The URL without user and password. */
  static String where(String url) {
    return url.replaceAll("//[^@/,]*@", "//");
  }
}
