package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.spring.internal.Boot3HealthIndicator;
import dev.idempotent.spring.internal.Boot4HealthIndicator;
import dev.idempotent.spring.internal.StoreHealth;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support: the {@code idempotency} health component (each store answers a read; turn it
 * off with {@code management.health.idempotency.enabled=false}) on Spring Boot 3 and 4, whose
 * health types live in different packages; and the {@link IdempotencyEndpoint} ({@code
 * idempotency}), to read and delete a record, which is exposed over HTTP only when {@code
 * management.endpoints.web.exposure.include} names it.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
public class IdempotencyActuatorAutoConfiguration {

  /** The {@code idempotency} endpoint; its annotations are in the same place in Boot 3 and 4. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
  static class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    IdempotencyEndpoint idempotencyEndpoint(
        Idempotency idempotency,
        ObjectProvider<HttpIdempotency> web,
        ObjectProvider<IdempotencyStartupReport> setup) {
      return new IdempotencyEndpoint(idempotency, web.getIfAvailable(), setup.getIfAvailable());
    }
  }

  /** Spring Boot 3's health types. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
  @ConditionalOnProperty(
      prefix = "management.health.idempotency",
      name = "enabled",
      matchIfMissing = true)
  static class Boot3Health {
    @Bean
    @ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
    Boot3HealthIndicator idempotencyHealthIndicator(Idempotency idempotency) {
      return new Boot3HealthIndicator(new StoreHealth(idempotency));
    }
  }

  /** Spring Boot 4's health types. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnProperty(
      prefix = "management.health.idempotency",
      name = "enabled",
      matchIfMissing = true)
  static class Boot4Health {
    @Bean
    @ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
    Boot4HealthIndicator idempotencyHealthIndicator(Idempotency idempotency) {
      return new Boot4HealthIndicator(new StoreHealth(idempotency));
    }
  }
}
