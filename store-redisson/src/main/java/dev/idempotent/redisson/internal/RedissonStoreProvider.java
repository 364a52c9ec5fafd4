package dev.idempotent.redisson.internal;

import static dev.idempotent.redisson.RedissonStoreSettings.ADDRESS;
import static dev.idempotent.redisson.RedissonStoreSettings.CONFIG;
import static dev.idempotent.redisson.RedissonStoreSettings.PASSWORD;
import static dev.idempotent.redisson.RedissonStoreSettings.TIMEOUT;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.redisson.RedissonStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link RedissonIdempotencyStore} from the {@code idempotent.redisson.*} settings ({@code
 * idempotent.store=redisson}), defined in {@link RedissonStoreSettings}. The store owns the
 * Redisson client it creates and shuts it down on close.
 *
 * <p>Timeouts with an address (and with a YAML file when {@code idempotent.redisson.timeout} is
 * set): connect timeout and command timeout are both {@code timeout}, with one retry after 100 ms,
 * so a command against a hung or unreachable server fails after about {@code 2 × timeout + 100 ms}
 * (6.1 s with the default 3 s), a refused connection fails at once, and creating the store fails
 * within about {@code timeout} when the server is down or refuses the credentials. Messages name
 * the address without credentials, never the password.
 */
public final class RedissonStoreProvider implements IdempotencyStoreProvider {
  static final int RETRY_ATTEMPTS = 1;
  static final int RETRY_INTERVAL_MS = 100;

  private static final Logger log = LoggerFactory.getLogger(RedissonStoreProvider.class);

  @Override
  public String name() {
    return "redisson";
  }

  @Override
  public List<Setting<?>> settings() {
    return RedissonStoreSettings.ALL;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    RedissonStoreSettings.ALL.forEach(settings::value); // each checked before anything is made
    Optional<String> address = Optional.ofNullable(settings.value(ADDRESS));
    Optional<String> configPath = Optional.ofNullable(settings.value(CONFIG));
    if (address.isPresent() && configPath.isPresent()) {
      throw new IllegalArgumentException(
          "both "
              + ADDRESS.name()
              + " and "
              + CONFIG.name()
              + " are set: keep one (the address for"
              + " a standalone server, the Redisson YAML file for Sentinel, Cluster or TLS)");
    }
    if (address.isEmpty() && configPath.isEmpty()) {
      throw new IllegalArgumentException(
          "missing setting "
              + ADDRESS.name()
              + ": set it to redis://host:port (or set "
              + CONFIG.name()
              + " to a Redisson YAML file) in idempotent.properties or as -D"
              + ADDRESS.name()
              + "=...");
    }
    Duration timeout = settings.value(TIMEOUT);
    boolean timeoutSet = timeout != null;
    Optional<String> password = Optional.ofNullable(settings.value(PASSWORD));

    Config config;
    String where;
    if (address.isPresent()) {
      where = withoutCredentials(address.get());
      config = new Config();
      BaseConfig<?> server = config.useSingleServer().setAddress(address.get());
      applyTimeouts(server, timeoutSet ? timeout : RedissonStoreSettings.DEFAULT_TIMEOUT);
      password.ifPresent(config::setPassword);
    } else {
      File file = new File(configPath.get());
      where = "the Redis servers of " + file;
      try {
        config = Config.fromYAML(file);
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "setting "
                + CONFIG.name()
                + ": cannot read Redisson YAML file "
                + file
                + ": "
                + e.getMessage(),
            e);
      }
      BaseConfig<?> server = serverConfig(config);
      if (server != null) {
        if (timeoutSet) {
          applyTimeouts(server, timeout);
        }
      } else if (timeoutSet) {
        log.warn("{} is ignored for {}: set the timeouts in that file", TIMEOUT.name(), file);
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
      builder = RedissonStoreSettings.builder(client, settings).shutdownClientOnClose(true);
    } catch (RuntimeException e) { // checked above; kept so that a client is never leaked
      client.shutdown();
      throw e;
    }
    try {
      RedissonIdempotencyStore store = builder.build();
      log.info("Idempotency records in Redis at {} ({})", where, store);
      return store;
    } catch (RuntimeException e) {
      client.shutdown();
      throw unreachable(where, address, password, e);
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

  static String withoutCredentials(String address) {
    return RedissonStoreSettings.withoutCredentials(address);
  }
}
