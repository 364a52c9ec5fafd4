package dev.idempotent.spring;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.redisson.RedissonStoreSettings;
import dev.idempotent.redisson.ReplicaSyncTimeout;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import dev.idempotent.spring.internal.TypedSettings;
import java.time.Duration;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The Redis store (idempotent-store-redisson on the classpath), unless the application has an
 * {@link IdempotencyStore} bean or {@code idempotent.store} names another store: with {@code
 * idempotent.redisson.address} or {@code config}, on a connection of its own; else on the
 * application's {@link RedissonClient} bean, if it has one. It comes before the JDBC and memory
 * stores. Its settings ({@link RedissonProperties}) are defined in {@link RedissonStoreSettings}.
 */
@AutoConfiguration(
    before = {
      IdempotencyJdbcStoreAutoConfiguration.class,
      IdempotencyMemoryStoreAutoConfiguration.class,
      IdempotencyAutoConfiguration.class
    },
    afterName = {
      "org.redisson.spring.starter.RedissonAutoConfiguration",
      "org.redisson.spring.starter.RedissonAutoConfigurationV2"
    })
@ConditionalOnClass(RedissonIdempotencyStore.class)
@Conditional(IdempotencyRedissonStoreAutoConfiguration.Chosen.class)
@EnableConfigurationProperties(IdempotencyRedissonStoreAutoConfiguration.RedissonProperties.class)
public class IdempotencyRedissonStoreAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");

  /** A connection of the store's own, from {@code idempotent.redisson.*}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(OwnConnectionSet.class)
  static class OwnConnection {
    /** Closed by the library, which made it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(RedissonProperties properties) {
      return StoresFromSettings.create(properties);
    }
  }

  /** The application's {@link RedissonClient}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(NoOwnConnection.class)
  @ConditionalOnSingleCandidate(RedissonClient.class)
  static class OnClientBean {
    /** Closing the store leaves the client running: it is the application's. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(RedissonClient client, RedissonProperties properties) {
      IdempotencyStore store =
          RedissonStoreSettings.builder(client, TypedSettings.ofStore(properties)).build();
      LOG.info("Idempotency records in Redis through the application's RedissonClient ({})", store);
      return store;
    }
  }

  /** {@code idempotent.store} is unset or {@code redisson}. */
  static final class Chosen extends StoreConditions.Chosen {
    Chosen() {
      super("redisson");
    }
  }

  /** {@code idempotent.redisson.address} or {@code .config} is set. */
  static final class OwnConnectionSet extends StoreConditions.AnySet {
    OwnConnectionSet() {
      super(true, RedissonStoreSettings.ADDRESS.name(), RedissonStoreSettings.CONFIG.name());
    }
  }

  /** Neither {@code idempotent.redisson.address} nor {@code .config} is set. */
  static final class NoOwnConnection extends StoreConditions.AnySet {
    NoOwnConnection() {
      super(false, RedissonStoreSettings.ADDRESS.name(), RedissonStoreSettings.CONFIG.name());
    }
  }

  /**
   * The {@code idempotent.redisson.*} settings, typed; each is defined once in {@link
   * RedissonStoreSettings}, whose descriptions these fields repeat (a test compares them).
   */
  @ConfigurationProperties("idempotent.redisson")
  public static class RedissonProperties implements IdempotencyStoreProperties {
    /** redis://host:port or rediss://host:port (TLS) of a standalone server. */
    private String address;

    /**
     * Path of a Redisson YAML file (Sentinel, Cluster, TLS, credentials, pools), instead of an
     * address.
     */
    private String config;

    /** Password of the server. */
    private String password;

    /**
     * Command and connect timeout; unset: 3s with an address, the YAML file's own with a config
     * file.
     */
    private Duration timeout;

    /** Prefix of the store's Redis keys; also used on the application's RedissonClient. */
    private String keyPrefix = "idem:";

    /** Replicas that must acknowledge each write (WAIT); 0: do not wait. */
    private Integer syncReplicas = 0;

    /** How long to wait for those replicas. */
    private Duration syncTimeout = Duration.ofSeconds(1);

    /** What a completion does when its WAIT times out: warn or fail. */
    private ReplicaSyncTimeout onSyncTimeout = ReplicaSyncTimeout.WARN;

    @Override
    public String storeName() {
      return "redisson";
    }

    public String getAddress() {
      return address;
    }

    public void setAddress(String address) {
      this.address = address;
    }

    public String getConfig() {
      return config;
    }

    public void setConfig(String config) {
      this.config = config;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Integer getSyncReplicas() {
      return syncReplicas;
    }

    public void setSyncReplicas(Integer syncReplicas) {
      this.syncReplicas = syncReplicas;
    }

    public Duration getSyncTimeout() {
      return syncTimeout;
    }

    public void setSyncTimeout(Duration syncTimeout) {
      this.syncTimeout = syncTimeout;
    }

    public ReplicaSyncTimeout getOnSyncTimeout() {
      return onSyncTimeout;
    }

    public void setOnSyncTimeout(ReplicaSyncTimeout onSyncTimeout) {
      this.onSyncTimeout = onSyncTimeout;
    }
  }
}
