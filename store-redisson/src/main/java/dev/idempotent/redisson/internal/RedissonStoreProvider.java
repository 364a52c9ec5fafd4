package dev.idempotent.redisson.internal;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.redisson.ReplicaSyncTimeout;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link RedissonIdempotencyStore} from {@code idempotent.redisson.*} settings ({@code
 * idempotent.store=redisson}). The store owns the Redisson client it creates and shuts it down on
 * close.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><td>{@code idempotent.redisson.address}</td><td>{@code redis://host:port} or {@code rediss://host:port}
 *       (TLS) of a standalone server; or else</td></tr>
 *   <tr><td>{@code idempotent.redisson.config}</td><td>path of a Redisson YAML file (Sentinel, Cluster, TLS,
 *       credentials, pools)</td></tr>
 *   <tr><td>{@code idempotent.redisson.password}</td><td>optional</td></tr>
 *   <tr><td>{@code idempotent.redisson.timeout}</td><td>command and connect timeout, default 3s (with a YAML
 *       file: only when set)</td></tr>
 *   <tr><td>{@code idempotent.redisson.key-prefix}</td><td>default {@code idem:}</td></tr>
 *   <tr><td>{@code idempotent.redisson.sync-replicas}, {@code idempotent.redisson.sync-timeout}</td>
 *       <td>optional {@code WAIT} after writes, timeout default 1s</td></tr>
 *   <tr><td>{@code idempotent.redisson.on-sync-timeout}</td><td>{@code warn} (default) or {@code fail}:
 *       what a completion does when its {@code WAIT} times out ({@link ReplicaSyncTimeout})</td></tr>
 * </table>
 *
 * <p>Timeouts with an address (and with a YAML file when {@code idempotent.redisson.timeout} is
 * set): connect timeout and command timeout are both {@code timeout}, with one retry after 100 ms,
 * so a command against a hung or unreachable server fails after about {@code 2 × timeout + 100 ms}
 * (6.1 s with the default 3 s), a refused connection fails at once, and creating the store fails
 * within about {@code timeout} when the server is down or refuses the credentials. Messages name
 * the address without credentials, never the password.
 */
public final class RedissonStoreProvider implements IdempotencyStoreProvider {
  public static final String ADDRESS = "idempotent.redisson.address";
  public static final String CONFIG = "idempotent.redisson.config";
  public static final String PASSWORD = "idempotent.redisson.password";
  public static final String TIMEOUT = "idempotent.redisson.timeout";
  public static final String KEY_PREFIX = "idempotent.redisson.key-prefix";
  public static final String SYNC_REPLICAS = "idempotent.redisson.sync-replicas";
  public static final String SYNC_TIMEOUT = "idempotent.redisson.sync-timeout";
  public static final String ON_SYNC_TIMEOUT = "idempotent.redisson.on-sync-timeout";

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);
  static final int RETRY_ATTEMPTS = 1;
  static final int RETRY_INTERVAL_MS = 100;

  private static final Logger log = LoggerFactory.getLogger(RedissonStoreProvider.class);

  @Override
  public String name() {
    return "redisson";
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    Optional<String> address = settings.get(ADDRESS);
    Optional<String> configPath = settings.get(CONFIG);
    if (address.isPresent() && configPath.isPresent()) {
      throw new IllegalArgumentException(
          "both "
              + ADDRESS
              + " and "
              + CONFIG
              + " are set: keep one (the address for"
              + " a standalone server, the Redisson YAML file for Sentinel, Cluster or TLS)");
    }
    if (address.isEmpty() && configPath.isEmpty()) {
      throw new IllegalArgumentException(
          "missing setting "
              + ADDRESS
              + ": set it to redis://host:port (or set "
              + CONFIG
              + " to a Redisson YAML file) in idempotent.properties or as -D"
              + ADDRESS
              + "=...");
    }
    Optional<Duration> timeoutSetting = settings.duration(TIMEOUT);
    Optional<String> password = settings.get(PASSWORD);
    String keyPrefix = settings.get(KEY_PREFIX).orElse(RedissonIdempotencyStore.DEFAULT_KEY_PREFIX);
    try {
      RecordNames.checkPrefix(keyPrefix);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("setting " + KEY_PREFIX + ": " + e.getMessage(), e);
    }
    int syncReplicas = syncReplicas(settings);
    Duration syncTimeout = settings.duration(SYNC_TIMEOUT).orElse(Duration.ofSeconds(1));
    ReplicaSyncTimeout onSyncTimeout = onSyncTimeout(settings);

    Config config;
    String where;
    if (address.isPresent()) {
      where = withoutCredentials(address.get());
      if (!where.startsWith("redis://") && !where.startsWith("rediss://")) {
        throw new IllegalArgumentException(
            "setting "
                + ADDRESS
                + " is '"
                + where
                + "': write redis://host:port, or rediss://host:port for TLS");
      }
      config = new Config();
      BaseConfig<?> server = config.useSingleServer().setAddress(address.get());
      applyTimeouts(server, timeoutSetting.orElse(DEFAULT_TIMEOUT));
      password.ifPresent(config::setPassword);
    } else {
      File file = new File(configPath.get());
      where = "the Redis servers of " + file;
      try {
        config = Config.fromYAML(file);
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "setting "
                + CONFIG
                + ": cannot read Redisson YAML file "
                + file
                + ": "
                + e.getMessage(),
            e);
      }
      BaseConfig<?> server = serverConfig(config);
      if (server != null) {
        timeoutSetting.ifPresent(t -> applyTimeouts(server, t));
      } else if (timeoutSetting.isPresent()) {
        log.warn("{} is ignored for {}: set the timeouts in that file", TIMEOUT, file);
      }
      Config yaml = config;
      password.ifPresent(yaml::setPassword);
    }

    RedissonClient client;
    try {
      client = Redisson.create(config);
    } catch (RuntimeException e) {
      throw unreachable(where, address, password, e);
    }
    RedissonIdempotencyStore.Builder builder;
    try {
      builder =
          RedissonIdempotencyStore.builder(client).shutdownClientOnClose(true).keyPrefix(keyPrefix);
      if (syncReplicas > 0) {
        builder = builder.syncReplicas(syncReplicas, syncTimeout, onSyncTimeout);
      }
    } catch (IllegalArgumentException e) { // checked above; kept so that a client is never leaked
      client.shutdown();
      throw e;
    }
    try {
      RedissonIdempotencyStore store = builder.build();
      log.debug("Idempotency records in Redis at {} ({})", where, store);
      return store;
    } catch (RuntimeException e) {
      client.shutdown();
      throw unreachable(where, address, password, e);
    }
  }

  private static ReplicaSyncTimeout onSyncTimeout(StoreSettings settings) {
    String value = settings.get(ON_SYNC_TIMEOUT).orElse("warn").strip();
    for (ReplicaSyncTimeout t : ReplicaSyncTimeout.values()) {
      if (t.name().equalsIgnoreCase(value)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "setting " + ON_SYNC_TIMEOUT + " must be warn or fail, was '" + value + "'");
  }

  private static int syncReplicas(StoreSettings settings) {
    Optional<String> value = settings.get(SYNC_REPLICAS);
    if (value.isEmpty()) {
      return 0;
    }
    try {
      int n = Integer.parseInt(value.get());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting "
              + SYNC_REPLICAS
              + " is '"
              + value.get()
              + "': write the number of replicas that must acknowledge each write, for example 1 (0"
              + " = do not wait)");
    }
  }

  private static void applyTimeouts(BaseConfig<?> server, Duration timeout) {
    int ms = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    server.setConnectTimeout(ms);
    server.setTimeout(ms);
    server.setRetryAttempts(RETRY_ATTEMPTS);
    server.setRetryInterval(RETRY_INTERVAL_MS);
  }

  private static BaseConfig<?> serverConfig(Config config) {
    if (config.isSingleConfig()) {
      return config.useSingleServer();
    }
    if (config.isClusterConfig()) {
      return config.useClusterServers();
    }
    if (config.isSentinelConfig()) {
      return config.useSentinelServers();
    }
    return null;
  }

  private static RuntimeException unreachable(
      String where, Optional<String> address, Optional<String> password, RuntimeException e) {
    String reason = String.valueOf(e.getMessage());
    if (address.isPresent()) {
      reason = reason.replace(address.get(), withoutCredentials(address.get()));
    }
    if (password.isPresent()) {
      reason = reason.replace(password.get(), "***");
    }
    return new IllegalStateException(
        "cannot use Redis at " + where + " for idempotency records: " + reason, e);
  }

  /**
   * The address as it may appear in messages: {@code redis://user:secret@host} becomes {@code
   * redis://***@host}.
   */
  static String withoutCredentials(String address) {
    int scheme = address.indexOf("://");
    int at = address.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return address;
    }
    return address.substring(0, scheme + 3) + "***" + address.substring(at);
  }
}
