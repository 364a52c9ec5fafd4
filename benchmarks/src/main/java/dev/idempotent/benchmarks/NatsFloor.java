package dev.idempotent.benchmarks;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.StorageType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The hand-written NATS floor: the least an application could send for an idempotent call, through
 * jnats' key-value API on the same {@link Connection} as the store, with string values. A claim is
 * one {@code create} (refused when the key exists, which one {@code get} then reads); a completion
 * one {@code update} on the revision the claim got; a replay one {@code get}. Its bucket keeps
 * entries for two hours (its max age); it judges no lease or ttl of its own.
 */
final class NatsFloor {
  static final String BUCKET = "bench-floor";

  /** JetStream's code for a write whose expected revision was not the key's. */
  private static final int WRONG_LAST_SEQUENCE = 10071;

  private final KeyValue kv;
  private final String prefix;

  NatsFloor(Connection connection, String prefix) {
    try {
      try {
        connection
            .keyValueManagement()
            .create(
                KeyValueConfiguration.builder()
                    .name(BUCKET)
                    .maxHistoryPerKey(1)
                    .ttl(Duration.ofHours(2))
                    .storageType(StorageType.File)
                    .build());
      } catch (JetStreamApiException exists) {
        // made by an earlier run
      }
      this.kv = connection.keyValue(BUCKET);
    } catch (IOException e) {
      throw new IllegalStateException("cannot open the floor's bucket " + BUCKET, e);
    }
    this.prefix = prefix;
  }

  /** Claims {@code key}, runs the body, records the outcome; a taken key is replayed. */
  Receipt submit(String key, String owner, long amountCents) {
    String name = prefix + key;
    long revision;
    try {
      revision = kv.create(name, owner.getBytes(StandardCharsets.UTF_8));
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != WRONG_LAST_SEQUENCE) {
        throw new IllegalStateException(e);
      }
      return replay(key, amountCents);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    Receipt receipt = Receipt.issue(key, amountCents);
    try {
      kv.update(name, encode(receipt), revision);
    } catch (JetStreamApiException | IOException e) {
      throw new IllegalStateException("the floor lost its claim of " + key, e);
    }
    return receipt;
  }

  /** The recorded receipt of a completed key: one {@code get}. */
  Receipt replay(String key, long amountCents) {
    KeyValueEntry entry;
    try {
      entry = kv.get(prefix + key);
    } catch (JetStreamApiException | IOException e) {
      throw new IllegalStateException(e);
    }
    if (entry == null || entry.getValue() == null) {
      throw new IllegalStateException("no completed record of " + key);
    }
    return decode(entry.getValue(), key);
  }

  private static byte[] encode(Receipt receipt) {
    return (receipt.amountCents() + ":" + receipt.currency() + ":" + receipt.orderId())
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static Receipt decode(byte[] value, String key) {
    String text = new String(value, StandardCharsets.UTF_8);
    int first = text.indexOf(':');
    int second = text.indexOf(':', first + 1);
    if (first < 0 || second < 0) {
      throw new IllegalStateException("the record of " + key + " is in progress");
    }
    return new Receipt(
        text.substring(second + 1),
        Long.parseLong(text, 0, first, 10),
        text.substring(first + 1, second));
  }
}
