package dev.idempotent.spring;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The memory store (idempotent-store-memory on the classpath), sized by {@code
 * idempotent.memory.maximum-size}: the store when the application has no {@link IdempotencyStore}
 * bean, {@code idempotent.store} names no other store, and neither the Redis nor the JDBC store was
 * configured (they come first).
 */
@AutoConfiguration(before = IdempotencyAutoConfiguration.class)
@ConditionalOnClass(CaffeineIdempotencyStore.class)
@Conditional(StoreConditions.MemoryChosen.class)
@EnableConfigurationProperties(IdempotencyProperties.class)
public class IdempotencyMemoryStoreAutoConfiguration {
  /** Closed by the library, which made it from the settings. */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(IdempotencyStore.class)
  public IdempotencyStore idempotencyStore(IdempotencyProperties properties) {
    return StoresFromSettings.create(properties, IdempotencyProperties.Store.MEMORY);
  }
}
