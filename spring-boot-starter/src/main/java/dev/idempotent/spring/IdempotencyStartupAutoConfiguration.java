package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The one start-up line of the library ({@link IdempotencyStartupReport}), once every other
 * auto-configuration of the starter has run.
 */
@AutoConfiguration(
    after = {
      IdempotencyAutoConfiguration.class,
      IdempotencyWebMvcAutoConfiguration.class,
      IdempotencyWebFluxAutoConfiguration.class
    },
    afterName = {
      "dev.idempotent.spring.messaging.IdempotentRabbitAutoConfiguration",
      "dev.idempotent.spring.messaging.IdempotentKafkaAutoConfiguration",
      "dev.idempotent.spring.messaging.IdempotentCamelAutoConfiguration"
    })
@ConditionalOnBean(Idempotency.class)
public class IdempotencyStartupAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyStartupReport idempotencyStartupReport(ApplicationContext context) {
    return new IdempotencyStartupReport(context);
  }
}
