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
import java.util.List;
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

  /**
   * The first of {@code names} on the class path: a Boot auto-configuration whose package differs
   * between the Boot 3 and Boot 4 lines.
   */
  static Class<?> firstPresent(String... names) {
    for (String name : names) {
      try {
        return Class.forName(name);
      } catch (ClassNotFoundException e) {
        // the other Boot line's package: try the next name
      }
    }
    throw new IllegalStateException("none of " + List.of(names) + " is on the class path");
  }
}
