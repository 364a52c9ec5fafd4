package dev.idempotent.spring.internal;

import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code idempotency} health component on Spring Boot 4 ({@code
 * org.springframework.boot.health}).
 */
public final class Boot4HealthIndicator implements HealthIndicator {
  private final StoreHealth stores;

  public Boot4HealthIndicator(StoreHealth stores) {
    this.stores = stores;
  }

  @Override
  public Health health() {
    Map<String, String> checked = stores.check();
    return (StoreHealth.allUp(checked) ? Health.up() : Health.down()).withDetails(checked).build();
  }
}
