package dev.idempotent.spring.it;

import dev.idempotent.spring.IdempotencyActuatorAutoConfiguration;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import dev.idempotent.spring.IdempotencyDynamoDbStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMicrometerAutoConfiguration;
import dev.idempotent.spring.IdempotencyNatsStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyRedissonStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyWebMvcAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;

/** The starter's auto-configurations, as an application gets them. */
final class StarterAutoConfigurations {
  private StarterAutoConfigurations() {}

  static AutoConfigurations all() {
    return AutoConfigurations.of(
        IdempotencyAutoConfiguration.class,
        IdempotencyRedissonStoreAutoConfiguration.class,
        IdempotencyDynamoDbStoreAutoConfiguration.class,
        IdempotencyNatsStoreAutoConfiguration.class,
        IdempotencyJdbcStoreAutoConfiguration.class,
        IdempotencyMemoryStoreAutoConfiguration.class,
        IdempotencyMicrometerAutoConfiguration.class,
        IdempotencyWebMvcAutoConfiguration.class,
        IdempotencyActuatorAutoConfiguration.class);
  }
}
