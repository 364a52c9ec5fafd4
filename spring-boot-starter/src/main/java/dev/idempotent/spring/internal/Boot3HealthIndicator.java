package dev.idempotent.spring.internal;

import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The {@code idempotency} health component on Spring Boot 3 ({@code
 * org.springframework.boot.actuate.health}).
 */
public final class Boot3HealthIndicator implements HealthIndicator {
  private final StoreHealth stores;

  public Boot3HealthIndicator(StoreHealth stores) {
    this.stores = stores;
  }

  @Override
  public Health health() {
    Map<String, String> checked = stores.check();
    return (StoreHealth.allUp(checked) ? Health.up() : Health.down()).withDetails(checked).build();
  }
}
