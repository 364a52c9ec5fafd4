package dev.idempotent.nats;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.nats.internal.KeyNames;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/** The settings of the NATS store ({@code idempotent.nats.*}), each defined once. */
public final class NatsStoreSettings {
  public static final Setting<String> URL =
      Setting.text(
              "idempotent.nats.url",
              null,
              "nats://host:port (tls://host:port for TLS) of the store's own connection, several"
                  + " separated by commas; unset: the application's Connection.")
          .requiring(
              NatsStoreSettings::isNatsUrl,
              "is not nats://host:port or tls://host:port (several separated by commas)")
          .secret();

  public static final Setting<String> BUCKET =
      Setting.text(
              "idempotent.nats.bucket",
              NatsIdempotencyStore.DEFAULT_BUCKET,
              "The key-value bucket of the records; one per application.")
          .requiring(
              NatsStoreSettings::isBucketName,
              "is not a bucket name: write 1 to 64 of A-Z, a-z, 0-9, '_', '-'");

  public static final Setting<Duration> TIMEOUT =
      Setting.duration(
          "idempotent.nats.timeout",
          NatsIdempotencyStore.DEFAULT_TIMEOUT,
          "Connect timeout of the store's own connection, and how long each request may take.");

  public static final Setting<Duration> LONGEST_TTL =
      Setting.duration(
          "idempotent.nats.longest-ttl",
          IdempotencyConfig.DEFAULT_TTL,
          "The longest ttl (or lease) any call asks for; a bucket whose max age is shorter than"
              + " it plus a minute is refused.");

  public static final Setting<Duration> MAX_AGE =
      Setting.duration(
          "idempotent.nats.max-age",
          NatsIdempotencyStore.DEFAULT_MAX_AGE,
          "The max age of a bucket the store creates.");

  public static final Setting<Integer> REPLICAS =
      Setting.integer(
          "idempotent.nats.replicas",
          1,
          1,
          5,
          "Replicas of a bucket the store creates (3 in a three-server cluster).");

  public static final Setting<Boolean> CREATE_BUCKET =
      Setting.flag(
          "idempotent.nats.create-bucket",
          true,
          "Create a missing bucket at start; false: a missing bucket fails the start with the"
              + " command that creates it.");

  public static final Setting<Integer> MAX_OUTCOME_SIZE =
      Setting.integer(
          "idempotent.nats.max-outcome-size",
          NatsIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES,
          1,
          Integer.MAX_VALUE,
          "The largest outcome recorded, in bytes; a larger one is not recorded and its key is"
              + " released.");

  /** Every setting of the NATS store. */
  public static final List<Setting<?>> ALL =
      List.of(
          URL, BUCKET, TIMEOUT, LONGEST_TTL, MAX_AGE, REPLICAS, CREATE_BUCKET, MAX_OUTCOME_SIZE);

  private NatsStoreSettings() {}

  /**
   * A builder of a store on {@code connection} (the application's, left open, unless the builder is
   * told otherwise), with the settings of {@code settings}.
   */
  public static NatsIdempotencyStore.Builder builder(
      Connection connection, StoreSettings settings) {
    return NatsIdempotencyStore.builder(connection)
        .bucket(settings.value(BUCKET))
        .timeout(settings.value(TIMEOUT))
        .longestTtl(settings.value(LONGEST_TTL))
        .maxAge(settings.value(MAX_AGE))
        .replicas(settings.value(REPLICAS))
        .createBucket(settings.value(CREATE_BUCKET))
        .maxOutcomeBytes(settings.value(MAX_OUTCOME_SIZE));
  }

  private static boolean isNatsUrl(String value) {
    return Arrays.stream(value.split(","))
        .map(String::strip)
        .allMatch(
            u ->
                (u.startsWith("nats://") || u.startsWith("tls://"))
                    && u.length() > u.indexOf("//") + 2);
  }

  private static boolean isBucketName(String value) {
    try {
      KeyNames.checkBucket(value);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
