package dev.idempotent.nats.internal;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;

/**
 * Finds the store's bucket, creating it when allowed, and checks that the store can keep its
 * promises on it. Many instances starting at once on a missing bucket all come up: JetStream
 * answers a create of a stream that exists with the same configuration as a success, and one with
 * another configuration with "stream name already in use", after which the bucket is read and
 * checked like any existing one.
 */
public final class BucketSetup {
  static final int STREAM_NOT_FOUND = 10059;

  private BucketSetup() {}

  /** What the store needs to know of its bucket. */
  public record Bucket(Duration maxAge, long maxMessageSize) {}

  public static Bucket ensure(
      Connection connection,
      KeyNames names,
      boolean create,
      int replicas,
      Duration maxAge,
      Duration longestTtl,
      Duration margin)
      throws IOException, JetStreamApiException {
    JetStreamManagement jsm = connection.jetStreamManagement();
    StreamInfo info = find(jsm, names.stream());
    if (info == null) {
      if (!create) {
        throw new IllegalStateException(
            "the NATS key-value bucket '"
                + names.bucket()
                + "' does not exist: create it (for example nats kv add "
                + names.bucket()
                + " --history 1 --ttl "
                + maxAge.toHours()
                + "h) or let the store create it");
      }
      KeyValueConfiguration config =
          KeyValueConfiguration.builder()
              .name(names.bucket())
              .description("idempotency records")
              .maxHistoryPerKey(1)
              .ttl(maxAge)
              .storageType(StorageType.File)
              .replicas(replicas)
              .build();
      try {
        connection.keyValueManagement().create(config);
      } catch (JetStreamApiException e) {
        // created meanwhile by another instance, with another configuration: checked below
      }
      info = find(jsm, names.stream());
      if (info == null) {
        throw new IllegalStateException(
            "the NATS key-value bucket '" + names.bucket() + "' could not be created");
      }
    }
    return check(names, info.getConfiguration(), longestTtl, margin);
  }

  private static StreamInfo find(JetStreamManagement jsm, String stream)
      throws IOException, JetStreamApiException {
    try {
      return jsm.getStreamInfo(stream);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  static Bucket check(
      KeyNames names, StreamConfiguration config, Duration longestTtl, Duration margin) {
    Duration maxAge = config.getMaxAge();
    boolean unlimited = maxAge == null || maxAge.isZero();
    if (!unlimited && maxAge.compareTo(longestTtl.plus(margin)) < 0) {
      throw new IllegalStateException(
          "the NATS key-value bucket '"
              + names.bucket()
              + "' keeps entries for "
              + maxAge
              + " (its max age), shorter than the longest ttl "
              + longestTtl
              + " plus "
              + margin
              + ": records would vanish before their ttl ends and a repeat would run again;"
              + " give the bucket a max age of at least "
              + longestTtl.plus(margin)
              + " or lower the longest ttl");
    }
    return new Bucket(unlimited ? null : maxAge, config.getMaximumMessageSize());
  }
}
