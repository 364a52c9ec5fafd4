package dev.idempotent.spring;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotent.dynamodb.DynamoDbStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import dev.idempotent.spring.internal.TypedSettings;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB store (idempotent-store-dynamodb on the classpath), unless the application has an
 * {@link IdempotencyStore} bean or {@code idempotent.store} names another store: with {@code
 * idempotent.dynamodb.endpoint} or {@code region}, on clients of its own; else on the application's
 * {@link DynamoDbClient} and {@link DynamoDbAsyncClient} beans, if it has both (one of them alone
 * fails start-up: the store needs both, on the same account and region). With {@code
 * idempotent.store=dynamodb} and neither, the store makes its own clients with the SDK's region
 * lookup ({@link IdempotencyAutoConfiguration}). It comes after the Redis store and before the JDBC
 * and memory stores. Its settings ({@link DynamoDbProperties}) are defined in {@link
 * DynamoDbStoreSettings}.
 */
@AutoConfiguration(
    after = IdempotencyRedissonStoreAutoConfiguration.class,
    before = {
      IdempotencyJdbcStoreAutoConfiguration.class,
      IdempotencyMemoryStoreAutoConfiguration.class,
      IdempotencyAutoConfiguration.class
    },
    afterName = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration")
@ConditionalOnClass(DynamoDbIdempotencyStore.class)
@Conditional(IdempotencyDynamoDbStoreAutoConfiguration.Chosen.class)
@EnableConfigurationProperties(IdempotencyDynamoDbStoreAutoConfiguration.DynamoDbProperties.class)
public class IdempotencyDynamoDbStoreAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");

  /** Clients of the store's own, from {@code idempotent.dynamodb.*}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(OwnClientsSet.class)
  static class OwnClients {
    /** Closed by the library, which made it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(DynamoDbProperties properties) {
      return StoresFromSettings.create(properties);
    }
  }

  /** The application's {@link DynamoDbClient} and {@link DynamoDbAsyncClient}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(NoOwnClients.class)
  @ConditionalOnSingleCandidate(DynamoDbClient.class)
  static class OnClientBeans {
    /** The store on both clients, when the application has a single asynchronous one too. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnSingleCandidate(DynamoDbAsyncClient.class)
    static class Both {
      /** Closing the store leaves the clients open: they are the application's. */
      @Bean(destroyMethod = "close")
      @ConditionalOnMissingBean(IdempotencyStore.class)
      IdempotencyStore idempotencyStore(
          DynamoDbClient client, DynamoDbAsyncClient asyncClient, DynamoDbProperties properties) {
        DynamoDbIdempotencyStore store =
            DynamoDbStoreSettings.builder(client, asyncClient, TypedSettings.ofStore(properties))
                .build();
        LOG.info(
            "Idempotency records in the DynamoDB table {} through the application's DynamoDbClient"
                + " and DynamoDbAsyncClient",
            store.table());
        return store;
      }
    }

    /** A blocking client bean without an asynchronous one: start-up fails, saying what to add. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(DynamoDbAsyncClient.class)
    static class BlockingOnly {
      @Bean
      @ConditionalOnMissingBean(IdempotencyStore.class)
      IdempotencyStore idempotencyStore() {
        throw oneClientOnly("DynamoDbClient", "DynamoDbAsyncClient");
      }
    }
  }

  /** An asynchronous client bean without a blocking one: start-up fails, saying what to add. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(NoOwnClients.class)
  @ConditionalOnBean(DynamoDbAsyncClient.class)
  @ConditionalOnMissingBean(DynamoDbClient.class)
  static class AsyncOnly {
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore() {
      throw oneClientOnly("DynamoDbAsyncClient", "DynamoDbClient");
    }
  }

  private static IdempotencyConfigurationException oneClientOnly(String present, String missing) {
    return new IdempotencyConfigurationException(
        "the application has a "
            + present
            + " bean but no "
            + missing
            + " bean: the DynamoDB store needs both, on the same account and region; define a "
            + missing
            + " bean, or set "
            + DynamoDbStoreSettings.REGION.name()
            + " (and "
            + DynamoDbStoreSettings.ENDPOINT.name()
            + ") for clients of the store's own");
  }

  /** {@code idempotent.store} is unset or {@code dynamodb}. */
  static final class Chosen extends StoreConditions.Chosen {
    Chosen() {
      super("dynamodb");
    }
  }

  /** {@code idempotent.dynamodb.endpoint} or {@code .region} is set. */
  static final class OwnClientsSet extends StoreConditions.AnySet {
    OwnClientsSet() {
      super(true, DynamoDbStoreSettings.ENDPOINT.name(), DynamoDbStoreSettings.REGION.name());
    }
  }

  /** Neither {@code idempotent.dynamodb.endpoint} nor {@code .region} is set. */
  static final class NoOwnClients extends StoreConditions.AnySet {
    NoOwnClients() {
      super(false, DynamoDbStoreSettings.ENDPOINT.name(), DynamoDbStoreSettings.REGION.name());
    }
  }

  /**
   * The {@code idempotent.dynamodb.*} settings, typed; each is defined once in {@link
   * DynamoDbStoreSettings}, whose descriptions these fields repeat (a test compares them). On the
   * application's clients region and endpoint do not apply (they choose clients of the store's
   * own).
   */
  @ConfigurationProperties("idempotent.dynamodb")
  public static class DynamoDbProperties implements IdempotencyStoreProperties {
    /** The table of the records. */
    private String table = "idempotency";

    /**
     * The AWS region of the store's own clients, such as eu-west-1; unset: the SDK's region lookup.
     */
    private String region;

    /**
     * Another endpoint for the store's own clients, http://host:port of a local DynamoDB; unset:
     * AWS's.
     */
    private String endpoint;

    /**
     * Create a missing table on first use (on-demand billing, TTL on); false: a missing table is
     * reported.
     */
    private Boolean createTable = false;

    /** How long each operation may take, SDK retries included. */
    private Duration timeout = Duration.ofSeconds(5);

    /**
     * The largest difference between the clocks of any two hosts using the table; a claim is taken
     * over only once its lease ended this long ago.
     */
    private Duration maxClockSkew = Duration.ofSeconds(1);

    @Override
    public String storeName() {
      return "dynamodb";
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public String getRegion() {
      return region;
    }

    public void setRegion(String region) {
      this.region = region;
    }

    public String getEndpoint() {
      return endpoint;
    }

    public void setEndpoint(String endpoint) {
      this.endpoint = endpoint;
    }

    public Boolean getCreateTable() {
      return createTable;
    }

    public void setCreateTable(Boolean createTable) {
      this.createTable = createTable;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public Duration getMaxClockSkew() {
      return maxClockSkew;
    }

    public void setMaxClockSkew(Duration maxClockSkew) {
      this.maxClockSkew = maxClockSkew;
    }
  }
}
