package dev.idempotent.spring.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.kafka.IdempotentKafkaRecordListener;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * With {@code idempotent.messaging.kafka.enabled=true}: before the {@code @KafkaListener}
 * containers start, each one's listener is wrapped in an {@link IdempotentKafkaRecordListener} (a
 * batch listener in an {@code IdempotentKafkaBatchListener}) filing the records of each topic under
 * {@code idempotent.messaging.kafka.scope-prefix}, its group id and the topic ({@code
 * kafka:<group>/<topic>}: the same key on two topics is two messages), and its error handler in an
 * {@code IdempotentKafkaErrorHandler}.
 */
@AutoConfiguration(
    after = IdempotencyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration",
      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"
    })
@ConditionalOnClass({KafkaListenerEndpointRegistry.class, IdempotentKafkaRecordListener.class})
@ConditionalOnBean({IdempotencyStore.class, Idempotency.class})
@ConditionalOnProperty(
    prefix = "idempotent.messaging.kafka",
    name = "enabled",
    havingValue = "true")
@EnableConfigurationProperties(IdempotentMessagingProperties.class)
public class IdempotentKafkaAutoConfiguration {
  @Bean
  SmartLifecycle idempotentKafkaListenerInstaller(
      ObjectProvider<KafkaListenerEndpointRegistry> registries,
      Idempotency idempotency,
      IdempotentMessagingProperties properties) {
    return new SmartLifecycle() {
      private volatile boolean running;

      @Override
      public void start() {
        KafkaListenerEndpointRegistry registry = registries.getIfAvailable();
        if (registry != null) {
          for (MessageListenerContainer container : registry.getListenerContainers()) {
            install(container);
          }
        }
        running = true;
      }

      private void install(MessageListenerContainer container) {
        String group =
            container instanceof AbstractMessageListenerContainer<?, ?> c ? c.getGroupId() : null;
        if (group == null || group.isBlank()) {
          throw new IllegalStateException(
              "the Kafka listener container "
                  + container.getListenerId()
                  + " has no group id, which names the scope of its records: set one"
                  + " (@KafkaListener(groupId = ...) or spring.kafka.consumer.group-id)");
        }
        // one key space per group and topic: the same key on two topics is two messages
        IdempotentKafkaRecordListener.install(
            container,
            IdempotentKafkaRecordListener.perTopic(
                MessageIdempotency.builder(properties.getKafka().getScopePrefix() + group)
                    .idempotency(idempotency)
                    .settings(IdempotencySettings.builder().store(properties.getStore()).build())
                    .inProgressWait(properties.getInProgressWait())
                    .build()),
            null);
      }

      @Override
      public void stop() {
        running = false;
      }

      @Override
      public boolean isRunning() {
        return running;
      }

      /** Before the registry starts its containers. */
      @Override
      public int getPhase() {
        return AbstractMessageListenerContainer.DEFAULT_PHASE - 100;
      }
    };
  }
}
