package dev.idempotent.spring.messaging;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.amqp.IdempotentRabbitErrorHandler;
import dev.idempotent.messaging.amqp.IdempotentRabbitListenerAdvice;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.ConditionalRejectingErrorHandler;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ErrorHandler;
import org.springframework.util.ReflectionUtils;

/**
 * With {@code idempotent.messaging.rabbit.enabled=true}: every listener container that the
 * application's Rabbit listener container factories make gets an {@link
 * IdempotentRabbitListenerAdvice} first in its advice chain (so a retry advice runs inside one
 * claim), filing each queue's messages under {@code idempotent.messaging.rabbit.scope-prefix} and
 * the queue's name.
 *
 * <p>Each container gets the advice for the acknowledge mode it actually runs in: the factory's
 * ({@code spring.rabbitmq.listener.simple|direct.acknowledge-mode}, or the application's own
 * factory setting), a listener's {@code @RabbitListener(ackMode = ...)}, and MANUAL for a listener
 * that replies asynchronously. A container in NONE mode, with a transacted channel or transaction
 * manager, or with consumer batching is refused at start-up with an error that says what to change.
 *
 * <p>Error handling: a container with Spring AMQP's default error handler gets {@link
 * IdempotentRabbitErrorHandler} (an application's bean of that type wins); a container whose
 * factory has an error handler of the application's keeps it, wrapped by {@link
 * IdempotentRabbitErrorHandler#around} (a message in progress is handed back quietly, everything
 * else reaches the application's handler unchanged).
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
        if (!(bean instanceof BaseRabbitListenerContainerFactory<?> factory)) {
          return bean;
        }
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
        // each container the factory makes: the advice for its own mode, the error handling
        ProxyFactory proxy = new ProxyFactory(factory);
        proxy.setProxyTargetClass(true);
        proxy.addAdvice(
            (MethodInterceptor)
                invocation -> {
                  Object made = invocation.proceed();
                  if ("createListenerContainer".equals(invocation.getMethod().getName())
                      && made instanceof AbstractMessageListenerContainer container) {
                    configure(container, advice, errorHandler.getObject(), beanName);
                  }
                  return made;
                });
        return proxy.getProxy(factory.getClass().getClassLoader());
      }
    };
  }

  /** Gives {@code container} the advice for its own acknowledge mode and the error handling. */
  static void configure(
      AbstractMessageListenerContainer container,
      IdempotentRabbitListenerAdvice advice,
      IdempotentRabbitErrorHandler errorHandler,
      String factoryName) {
    String which =
        "the listener container of "
            + String.join(", ", container.getQueueNames())
            + " (factory "
            + factoryName
            + ")";
    AcknowledgeMode mode =
        Boolean.TRUE.equals(call(container, "isAsyncReplies"))
            ? AcknowledgeMode.MANUAL
            : container.getAcknowledgeMode();
    if (mode == AcknowledgeMode.NONE) {
      throw new IllegalStateException(
          which
              + " has acknowledge-mode NONE: the broker forgets each message on delivery, so a"
              + " message in progress elsewhere could not be handed back. Use AUTO or MANUAL, or"
              + " turn idempotent.messaging.rabbit.enabled off");
    }
    if (container.isChannelTransacted() || call(container, "getTransactionManager") != null) {
      throw new IllegalStateException(
          which
              + " has a transacted channel or a transaction manager: the idempotent advice would"
              + " record a message's outcome before the channel's transaction commits. Turn"
              + " channelTransacted off and remove the container's transaction manager, or turn"
              + " idempotent.messaging.rabbit.enabled off");
    }
    if (container instanceof SimpleMessageListenerContainer simple
        && simple.isConsumerBatchEnabled()) {
      throw new IllegalStateException(
          which
              + " is a batch listener (consumerBatchEnabled): the idempotent advice runs one"
              + " message at a time. Turn batch listening off for it, or turn"
              + " idempotent.messaging.rabbit.enabled off");
    }
    Advice[] chain = (Advice[]) call(container, "getAdviceChain");
    List<Advice> own = new ArrayList<>();
    own.add(advice.withAcknowledgeMode(mode));
    if (chain != null) {
      for (Advice a : chain) {
        if (a != advice) {
          own.add(a);
        }
      }
    }
    container.setAdviceChain(own.toArray(new Advice[0]));
    ErrorHandler current = container.getErrorHandler();
    if (current == null || current.getClass() == ConditionalRejectingErrorHandler.class) {
      container.setErrorHandler(errorHandler); // Spring AMQP's default: ours in its place
    } else if (!(current instanceof IdempotentRabbitErrorHandler)) {
      container.setErrorHandler(IdempotentRabbitErrorHandler.around(current));
    }
  }

  private static Object call(AbstractMessageListenerContainer container, String getter) {
    Method method = ReflectionUtils.findMethod(container.getClass(), getter);
    if (method == null) {
      return null;
    }
    ReflectionUtils.makeAccessible(method);
    return ReflectionUtils.invokeMethod(method, container);
  }
}
