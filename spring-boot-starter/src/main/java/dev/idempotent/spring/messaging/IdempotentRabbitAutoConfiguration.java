package dev.idempotent.spring.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.amqp.IdempotentRabbitErrorHandler;
import dev.idempotent.messaging.amqp.IdempotentRabbitListenerAdvice;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import org.aopalliance.aop.Advice;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With {@code idempotent.messaging.rabbit.enabled=true}: every Rabbit listener container factory of
 * the application gets an {@link IdempotentRabbitListenerAdvice} first in its advice chain (so a
 * retry advice runs inside one claim), filing each queue's messages under {@code
 * idempotent.messaging.rabbit.scope-prefix} and the queue's name, and the {@link
 * IdempotentRabbitErrorHandler} (an application's bean of that type wins).
 */
@AutoConfiguration(
    after = IdempotencyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration",
      "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration"
    })
@ConditionalOnClass({
  BaseRabbitListenerContainerFactory.class,
  IdempotentRabbitListenerAdvice.class
})
@ConditionalOnBean({IdempotencyStore.class, Idempotency.class})
@ConditionalOnProperty(
    prefix = "idempotent.messaging.rabbit",
    name = "enabled",
    havingValue = "true")
@EnableConfigurationProperties(IdempotentMessagingProperties.class)
public class IdempotentRabbitAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean
  public IdempotentRabbitErrorHandler idempotentRabbitErrorHandler() {
    return new IdempotentRabbitErrorHandler();
  }

  @Bean
  static BeanPostProcessor idempotentRabbitListenerContainerFactories(
      ObjectProvider<Idempotency> idempotency,
      ObjectProvider<IdempotentMessagingProperties> properties,
      ObjectProvider<IdempotentRabbitErrorHandler> errorHandler) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof BaseRabbitListenerContainerFactory<?> factory) {
          IdempotentMessagingProperties p = properties.getObject();
          IdempotentRabbitListenerAdvice advice =
              IdempotentRabbitListenerAdvice.perQueue(
                      queue ->
                          MessageIdempotency.builder(p.getRabbit().getScopePrefix() + queue)
                              .idempotency(idempotency.getObject())
                              .settings(IdempotencySettings.builder().store(p.getStore()).build())
                              .inProgressWait(p.getInProgressWait())
                              .build())
                  .build();
          Advice[] existing = factory.getAdviceChain();
          int length = existing == null ? 0 : existing.length;
          Advice[] chain = new Advice[length + 1];
          chain[0] = advice;
          if (existing != null) {
            System.arraycopy(existing, 0, chain, 1, length);
          }
          factory.setAdviceChain(chain);
          if (factory instanceof AbstractRabbitListenerContainerFactory<?> containers) {
            containers.setErrorHandler(errorHandler.getObject());
          }
        }
        return bean;
      }
    };
  }
}
