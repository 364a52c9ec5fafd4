package dev.idempotent.spring;

import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.memory.MemoryStoreSettings;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.StoreConditions;
import dev.idempotent.spring.internal.StoresFromSettings;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
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
@Conditional(IdempotencyMemoryStoreAutoConfiguration.Chosen.class)
@EnableConfigurationProperties(IdempotencyMemoryStoreAutoConfiguration.MemoryProperties.class)
public class IdempotencyMemoryStoreAutoConfiguration {
  /** Closed by the library, which made it from the settings. */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(IdempotencyStore.class)
  public IdempotencyStore idempotencyStore(MemoryProperties properties) {
    return StoresFromSettings.create(properties);
  }

  /** {@code idempotent.store} is unset or {@code memory}. */
  static final class Chosen extends StoreConditions.Chosen {
    Chosen() {
      super("memory");
    }
  }

  /**
   * The {@code idempotent.memory.*} settings, typed; each is defined once in {@link
   * MemoryStoreSettings}, whose descriptions these fields repeat (a test compares them).
   */
  @ConfigurationProperties("idempotent.memory")
  public static class MemoryProperties implements IdempotencyStoreProperties {
    /** The most completed records kept (claims in progress do not count). */
    private Long maximumSize = 100000L;

    @Override
    public String storeName() {
      return "memory";
    }

    public Long getMaximumSize() {
      return maximumSize;
    }

    public void setMaximumSize(Long maximumSize) {
      this.maximumSize = maximumSize;
    }
  }
}
