package dev.idempotent.spring;

import dev.idempotent.nats.NatsIdempotencyStore;
import dev.idempotent.nats.NatsStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import dev.idempotent.spring.internal.TypedSettings;
import io.nats.client.Connection;
import java.time.Duration;
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
 * The NATS JetStream store (idempotent-store-nats on the classpath), unless the application has an
 * {@link IdempotencyStore} bean or {@code idempotent.store} names another store: with {@code
 * idempotent.nats.url}, on a connection of its own; else on the application's {@link Connection}
 * bean, if it has one. It comes after the Redis and DynamoDB stores and before the JDBC and memory
 * stores. Its settings ({@link NatsProperties}) are defined in {@link NatsStoreSettings}.
 */
@AutoConfiguration(
    after = {
      IdempotencyRedissonStoreAutoConfiguration.class,
      IdempotencyDynamoDbStoreAutoConfiguration.class
    },
    before = {
      IdempotencyJdbcStoreAutoConfiguration.class,
      IdempotencyMemoryStoreAutoConfiguration.class,
      IdempotencyAutoConfiguration.class
    },
    afterName = "io.nats.spring.boot.autoconfigure.NatsAutoConfiguration")
@ConditionalOnClass(NatsIdempotencyStore.class)
@Conditional(IdempotencyNatsStoreAutoConfiguration.Chosen.class)
@EnableConfigurationProperties(IdempotencyNatsStoreAutoConfiguration.NatsProperties.class)
public class IdempotencyNatsStoreAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");

  /** A connection of the store's own, from {@code idempotent.nats.*}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(OwnConnectionSet.class)
  static class OwnConnection {
    /** Closed by the library, which made it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(NatsProperties properties) {
      return StoresFromSettings.create(properties);
    }
  }

  /** The application's {@link Connection}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(NoOwnConnection.class)
  @ConditionalOnSingleCandidate(Connection.class)
  static class OnConnectionBean {
    /** Closing the store leaves the connection open: it is the application's. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(Connection connection, NatsProperties properties) {
      IdempotencyStore store =
          NatsStoreSettings.builder(connection, TypedSettings.ofStore(properties)).build();
      LOG.info("Idempotency records in NATS through the application's Connection ({})", store);
      return store;
    }
  }

  /** {@code idempotent.store} is unset or {@code nats}. */
  static final class Chosen extends StoreConditions.Chosen {
    Chosen() {
      super("nats");
    }
  }

  /** {@code idempotent.nats.url} is set. */
  static final class OwnConnectionSet extends StoreConditions.AnySet {
    OwnConnectionSet() {
      super(true, NatsStoreSettings.URL.name());
    }
  }

  /** {@code idempotent.nats.url} is unset. */
  static final class NoOwnConnection extends StoreConditions.AnySet {
    NoOwnConnection() {
      super(false, NatsStoreSettings.URL.name());
    }
  }

  /**
   * The {@code idempotent.nats.*} settings, typed; each is defined once in {@link
   * NatsStoreSettings}, whose descriptions these fields repeat (a test compares them). On the
   * application's Connection the url and the timeout's connect part do not apply.
   */
  @ConfigurationProperties("idempotent.nats")
  public static class NatsProperties implements IdempotencyStoreProperties {
    /**
     * nats://host:port (tls://host:port for TLS) of the store's own connection, several separated
     * by commas; unset: the application's Connection.
     */
    private String url;

    /** The key-value bucket of the records; one per application. */
    private String bucket = "idempotent";

    /** Connect timeout of the store's own connection, and how long each request may take. */
    private Duration timeout = Duration.ofSeconds(5);

    /**
     * The longest ttl (or lease) any call asks for; a bucket whose max age is shorter than it plus
     * a minute is refused.
     */
    private Duration longestTtl = Duration.ofHours(24);

    /** The max age of a bucket the store creates. */
    private Duration maxAge = Duration.ofHours(48);

    /** Replicas of a bucket the store creates (3 in a three-server cluster). */
    private Integer replicas = 1;

    /**
     * Create a missing bucket at start; false: a missing bucket fails the start with the command
     * that creates it.
     */
    private Boolean createBucket = true;

    /**
     * The largest outcome recorded, in bytes; a larger one is not recorded and its key is released.
     */
    private Integer maxOutcomeSize = 16777216;

    @Override
    public String storeName() {
      return "nats";
    }

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getBucket() {
      return bucket;
    }

    public void setBucket(String bucket) {
      this.bucket = bucket;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public Duration getLongestTtl() {
      return longestTtl;
    }

    public void setLongestTtl(Duration longestTtl) {
      this.longestTtl = longestTtl;
    }

    public Duration getMaxAge() {
      return maxAge;
    }

    public void setMaxAge(Duration maxAge) {
      this.maxAge = maxAge;
    }

    public Integer getReplicas() {
      return replicas;
    }

    public void setReplicas(Integer replicas) {
      this.replicas = replicas;
    }

    public Boolean getCreateBucket() {
      return createBucket;
    }

    public void setCreateBucket(Boolean createBucket) {
      this.createBucket = createBucket;
    }

    public Integer getMaxOutcomeSize() {
      return maxOutcomeSize;
    }

    public void setMaxOutcomeSize(Integer maxOutcomeSize) {
      this.maxOutcomeSize = maxOutcomeSize;
    }
  }
}
