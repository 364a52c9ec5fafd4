package dev.idempotent.spring.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.camel.StoreIdempotentRepository;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import org.apache.camel.spi.IdempotentRepository;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With Camel on the class path: an {@link IdempotentRepository} bean on the library's claims in the
 * configured store ({@code idempotent.messaging.store}, else the default one), for {@code
 * idempotentConsumer} routes; an application's {@code IdempotentRepository} bean wins.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnClass({IdempotentRepository.class, StoreIdempotentRepository.class})
@ConditionalOnBean({IdempotencyStore.class, Idempotency.class})
@ConditionalOnProperty(
    prefix = "idempotent.messaging.camel",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(IdempotentMessagingProperties.class)
public class IdempotentCamelAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean(IdempotentRepository.class)
  public StoreIdempotentRepository idempotentRepository(
      Idempotency idempotency, IdempotentMessagingProperties properties) {
    IdempotentMessagingProperties.Camel camel = properties.getCamel();
    MessageIdempotency messages =
        MessageIdempotency.builder(camel.getScope())
            .idempotency(idempotency)
            .settings(
                IdempotencySettings.builder()
                    .store(properties.getStore())
                    .lease(camel.getLease())
                    .ttl(camel.getTtl())
                    .build())
            .inProgressWait(properties.getInProgressWait())
            .build();
    return StoreIdempotentRepository.builder(messages).build();
  }
}
