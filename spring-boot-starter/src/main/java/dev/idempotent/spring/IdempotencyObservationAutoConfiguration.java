package dev.idempotent.spring;

import dev.idempotent.IdempotencyObserver;
import dev.idempotent.micrometer.IdempotentCallObservationConvention;
import dev.idempotent.micrometer.IdempotentStoreObservationConvention;
import dev.idempotent.micrometer.ObservationIdempotencyObserver;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * An {@code idempotent.call} observation per idempotent call in the application's {@link
 * ObservationRegistry} (with Micrometer Tracing, a span in the caller's trace), when
 * idempotent-micrometer is on the classpath and the application has a registry (Spring Boot's
 * Actuator makes one). {@code idempotent.observations.enabled=false} turns it off; an application's
 * own {@link IdempotencyObserver} bean replaces this one, and {@link
 * IdempotentCallObservationConvention} / {@link IdempotentStoreObservationConvention} beans rename
 * the observations.
 */
@AutoConfiguration(
    before = IdempotencyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
    })
@ConditionalOnClass({ObservationRegistry.class, ObservationIdempotencyObserver.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(
    prefix = "idempotent.observations",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyObservationProperties.class)
public class IdempotencyObservationAutoConfiguration {
  /** The installed configuration's observer. */
  @Bean
  @ConditionalOnMissingBean(IdempotencyObserver.class)
  public ObservationIdempotencyObserver idempotencyObserver(
      ObservationRegistry registry,
      IdempotencyObservationProperties properties,
      ObjectProvider<IdempotentCallObservationConvention> convention,
      ObjectProvider<IdempotentStoreObservationConvention> storeConvention) {
    ObservationIdempotencyObserver.Builder b =
        ObservationIdempotencyObserver.builder(registry)
            .keyDigest(properties.isKeyDigest())
            .roundTrips(properties.isStoreRoundTrips());
    convention.ifUnique(b::convention);
    storeConvention.ifUnique(b::storeConvention);
    return b.build();
  }
}
