package dev.idempotent.spring;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.redisson.ReplicaSyncTimeout;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import java.time.Duration;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The Redis store (idempotent-store-redisson on the classpath), unless the application has an
 * {@link IdempotencyStore} bean or {@code idempotent.store} names another store: with {@code
 * idempotent.redisson.address} or {@code config}, on a connection of its own; else on the
 * application's {@link RedissonClient} bean, if it has one. It comes before the JDBC and memory
 * stores.
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
@Conditional(StoreConditions.RedissonChosen.class)
@EnableConfigurationProperties(IdempotencyProperties.class)
public class IdempotencyRedissonStoreAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");

  /** A connection of the store's own, from {@code idempotent.redisson.*}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(StoreConditions.OwnRedisConnection.class)
  static class OwnConnection {
    /** Closed by the library, which made it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(IdempotencyProperties properties) {
      return StoresFromSettings.create(properties, IdempotencyProperties.Store.REDISSON);
    }
  }

  /** The application's {@link RedissonClient}. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(StoreConditions.NoOwnRedisConnection.class)
  @ConditionalOnSingleCandidate(RedissonClient.class)
  static class OnClientBean {
    /** Closing the store leaves the client running: it is the application's. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore idempotencyStore(RedissonClient client, IdempotencyProperties properties) {
      IdempotencyProperties.Redisson settings = properties.getRedisson();
      RedissonIdempotencyStore.Builder b = RedissonIdempotencyStore.builder(client);
      if (settings.getKeyPrefix() != null) {
        b = b.keyPrefix(settings.getKeyPrefix());
      }
      Integer replicas = settings.getSyncReplicas();
      if (replicas != null && replicas > 0) {
        Duration timeout = settings.getSyncTimeout();
        b =
            b.syncReplicas(
                replicas,
                timeout == null ? Duration.ofSeconds(1) : timeout,
                settings.getOnSyncTimeout() == IdempotencyProperties.OnSyncTimeout.FAIL
                    ? ReplicaSyncTimeout.FAIL
                    : ReplicaSyncTimeout.WARN);
      }
      try {
        IdempotencyStore store = b.build();
        LOG.info(
            "Idempotency records in Redis through the application's RedissonClient ({})", store);
        return store;
      } catch (IllegalArgumentException e) {
        throw new IdempotencyConfigurationException("idempotent.redisson.*: " + e.getMessage(), e);
      }
    }
  }
}
