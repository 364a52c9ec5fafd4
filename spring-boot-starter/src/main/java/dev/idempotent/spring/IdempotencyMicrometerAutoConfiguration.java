package dev.idempotent.spring;

import dev.idempotent.micrometer.MicrometerIdempotencyListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Metrics of every idempotent call ({@code idempotent.calls}, {@code idempotent.executions}) in the
 * application's {@link MeterRegistry}, when Micrometer and idempotent-micrometer are on the
 * classpath and the application has one registry (Spring Boot's composite one counts as one). An
 * application's own {@link MicrometerIdempotencyListener} bean replaces this one.
 */
@AutoConfiguration(
    before = IdempotencyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, MicrometerIdempotencyListener.class})
@ConditionalOnSingleCandidate(MeterRegistry.class)
public class IdempotencyMicrometerAutoConfiguration {
  /** Heard by the installed configuration like every other {@code IdempotencyListener} bean. */
  @Bean
  @ConditionalOnMissingBean(MicrometerIdempotencyListener.class)
  public MicrometerIdempotencyListener micrometerIdempotencyListener(MeterRegistry registry) {
    return MicrometerIdempotencyListener.of(registry);
  }
}
