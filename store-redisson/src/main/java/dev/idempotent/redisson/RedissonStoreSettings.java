package dev.idempotent.redisson;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.List;
import org.redisson.api.RedissonClient;

/**
 * The {@code idempotent.redisson.*} settings, each defined once, and how they make a store: {@link
 * #builder} applies the store's own settings to a {@link RedissonIdempotencyStore.Builder}, for a
 * client made from {@link #ADDRESS} or {@link #CONFIG} (without Spring, {@code
 * idempotent.store=redisson}) and for the application's {@code RedissonClient} bean alike.
 */
public final class RedissonStoreSettings {
  /** The default of {@link #TIMEOUT}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);

  public static final Setting<String> ADDRESS =
      Setting.text(
              "idempotent.redisson.address",
              null,
              "redis://host:port or rediss://host:port (TLS) of a standalone server.")
          .requiring(
              a -> a.startsWith("redis://") || a.startsWith("rediss://"),
              "is not an address: write redis://host:port, or rediss://host:port for TLS")
          .shownAs(RedissonStoreSettings::withoutCredentials);

  public static final Setting<String> CONFIG =
      Setting.text(
          "idempotent.redisson.config",
          null,
          "Path of a Redisson YAML file (Sentinel, Cluster, TLS, credentials, pools), instead of an"
              + " address.");

  public static final Setting<String> PASSWORD =
      Setting.text("idempotent.redisson.password", null, "Password of the server.").secret();

  public static final Setting<Duration> TIMEOUT =
      Setting.duration(
          "idempotent.redisson.timeout",
          null,
          "Command and connect timeout; unset: 3s with an address, the YAML file's own with a"
              + " config file.");

  public static final Setting<String> KEY_PREFIX =
      Setting.text(
              "idempotent.redisson.key-prefix",
              RedissonIdempotencyStore.DEFAULT_KEY_PREFIX,
              "Prefix of the store's Redis keys; also used on the application's RedissonClient.")
          .requiring(
              p -> p.length() <= 100 && p.indexOf('{') < 0 && p.indexOf('}') < 0,
              "has more than 100 characters or a brace (the store adds its own Redis Cluster hash"
                  + " tag)");

  public static final Setting<Integer> SYNC_REPLICAS =
      Setting.integer(
          "idempotent.redisson.sync-replicas",
          0,
          0,
          1000,
          "Replicas that must acknowledge each write (WAIT); 0: do not wait.");

  public static final Setting<Duration> SYNC_TIMEOUT =
      Setting.duration(
          "idempotent.redisson.sync-timeout",
          Duration.ofSeconds(1),
          "How long to wait for those replicas.");

  public static final Setting<ReplicaSyncTimeout> ON_SYNC_TIMEOUT =
      Setting.choice(
          "idempotent.redisson.on-sync-timeout",
          ReplicaSyncTimeout.class,
          ReplicaSyncTimeout.WARN,
          "What a completion does when its WAIT times out: warn or fail.");

  /** Every setting of the Redis store, in the docs' order. */
  public static final List<Setting<?>> ALL =
      List.of(
          ADDRESS,
          CONFIG,
          PASSWORD,
          TIMEOUT,
          KEY_PREFIX,
          SYNC_REPLICAS,
          SYNC_TIMEOUT,
          ON_SYNC_TIMEOUT);

  private RedissonStoreSettings() {}

  /**
   * The address as it may appear in messages: {@code redis://user:secret@host} becomes {@code
   * redis://***@host}.
   */
  public static String withoutCredentials(String address) {
    int scheme = address.indexOf("://");
    int at = address.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return address;
    }
    return address.substring(0, scheme + 3) + "***" + address.substring(at);
  }

  /**
   * A builder of a store on {@code client} with {@link #KEY_PREFIX}, {@link #SYNC_REPLICAS}, {@link
   * #SYNC_TIMEOUT} and {@link #ON_SYNC_TIMEOUT} from {@code settings}.
   *
   * @throws IdempotencyConfigurationException naming a bad setting
   */
  public static RedissonIdempotencyStore.Builder builder(
      RedissonClient client, StoreSettings settings) {
    RedissonIdempotencyStore.Builder b =
        RedissonIdempotencyStore.builder(client).keyPrefix(settings.value(KEY_PREFIX));
    int replicas = settings.value(SYNC_REPLICAS);
    if (replicas > 0) {
      b = b.syncReplicas(replicas, settings.value(SYNC_TIMEOUT), settings.value(ON_SYNC_TIMEOUT));
    }
    return b;
  }
}
