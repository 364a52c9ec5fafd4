package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration;
import dev.idempotent.spring.messaging.IdempotentRabbitAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.ChannelCallback;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The Rabbit auto-configuration follows each container's acknowledge mode (issue 39, item 9) and
 * keeps an application's own error handler, on RabbitMQ.
 */
class RabbitAcknowledgeModesTest {
  static final String MANUAL_QUEUE = "idempotent.boot.manual";
  static final String ACK_MODE_QUEUE = "idempotent.boot.ackmode";
  static final String OWN_HANDLER_QUEUE = "idempotent.boot.ownhandler";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdempotencyMemoryStoreAutoConfiguration.class,
                  IdempotencyAutoConfiguration.class,
                  rabbitAutoConfiguration(),
                  IdempotentRabbitAutoConfiguration.class))
          .withPropertyValues(
              "idempotent.messaging.rabbit.enabled=true",
              "idempotent.messaging.in-progress-wait=500ms");

  @Test
  void manualAcknowledgeModeFromPropertiesAcknowledgesReplaysAndNeverStalls() {
    String host = TestServices.rabbitHost();
    runner
        .withPropertyValues(
            "spring.rabbitmq.host=" + host,
            "spring.rabbitmq.listener.simple.acknowledge-mode=manual",
            "spring.rabbitmq.listener.simple.prefetch=2")
        .withUserConfiguration(ManualListener.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ManualListener listener = context.getBean(ManualListener.class);
              String run = sendWithDuplicates(context.getBean(RabbitTemplate.class), MANUAL_QUEUE);
              // with prefetch 2, an unacknowledged replay would stall the consumer before these
              await(() -> runsOf(listener.runs, run).size() == 4);
              Thread.sleep(300);
              assertThat(runsOf(listener.runs, run)).containsExactly("m-1", "m-2", "m-3", "m-4");
              assertAllAcknowledged(context, MANUAL_QUEUE);
            });
  }

  @Test
  void aListenersOwnManualAckModeIsFollowed() {
    String host = TestServices.rabbitHost();
    runner
        .withPropertyValues(
            "spring.rabbitmq.host=" + host, "spring.rabbitmq.listener.simple.prefetch=2")
        .withUserConfiguration(AckModeListener.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AckModeListener listener = context.getBean(AckModeListener.class);
              AbstractMessageListenerContainer container =
                  (AbstractMessageListenerContainer)
                      context
                          .getBean(RabbitListenerEndpointRegistry.class)
                          .getListenerContainer("ackMode");
              assertThat(container.getAcknowledgeMode()).isEqualTo(AcknowledgeMode.MANUAL);
              String run =
                  sendWithDuplicates(context.getBean(RabbitTemplate.class), ACK_MODE_QUEUE);
              await(() -> runsOf(listener.runs, run).size() == 4);
              Thread.sleep(300);
              assertThat(runsOf(listener.runs, run)).containsExactly("m-1", "m-2", "m-3", "m-4");
              assertAllAcknowledged(context, ACK_MODE_QUEUE);
            });
  }

  @Test
  void anApplicationsOwnErrorHandlerIsKeptAndWrapped() {
    String host = TestServices.rabbitHost();
    runner
        .withPropertyValues("spring.rabbitmq.host=" + host)
        .withUserConfiguration(OwnErrorHandler.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OwnErrorHandler own = context.getBean(OwnErrorHandler.class);
              AbstractMessageListenerContainer container =
                  (AbstractMessageListenerContainer)
                      context
                          .getBean(RabbitListenerEndpointRegistry.class)
                          .getListenerContainer("ownHandler");
              assertThat(container.getErrorHandler().toString())
                  .startsWith("IdempotentRabbitErrorHandler.around(");
              context
                  .getBean(RabbitTemplate.class)
                  .send("", OWN_HANDLER_QUEUE, message("fail", "f-1"));
              await(
                  () -> own.handled.get() >= 1); // the listener's failure reached the app's handler
            });
  }

  @Test
  void aTransactedContainerIsRefusedAtStartUp() {
    runner
        .withPropertyValues(
            "spring.rabbitmq.host=127.0.0.1", "spring.rabbitmq.listener.simple.auto-startup=false")
        .withUserConfiguration(TransactedFactory.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("has a transacted channel or a transaction manager");
            });
  }

  /** Boot's own Rabbit auto-configuration, whichever package this Boot line has it in. */
  static Class<?> rabbitAutoConfiguration() {
    for (String name :
        List.of(
            "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration",
            "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration")) {
      try {
        return Class.forName(name);
      } catch (ClassNotFoundException e) {
        // the other Boot line's package: try the next name
      }
    }
    throw new IllegalStateException("no RabbitAutoConfiguration on the class path");
  }

  /** Sends m-1 three times (two duplicates: replayed, acked) and m-2 to m-4; returns the run id. */
  private static String sendWithDuplicates(RabbitTemplate template, String queue) {
    String run = "/" + System.nanoTime();
    template.send("", queue, message("m-1" + run, "id-1" + run));
    template.send("", queue, message("m-1" + run, "id-1" + run));
    template.send("", queue, message("m-1" + run, "id-1" + run));
    template.send("", queue, message("m-2" + run, "id-2" + run));
    template.send("", queue, message("m-3" + run, "id-3" + run));
    template.send("", queue, message("m-4" + run, "id-4" + run));
    return run;
  }

  /**
   * The bodies this run sent that the listener ran (a queue may hold an earlier run's messages).
   */
  private static List<String> runsOf(List<String> runs, String run) {
    return runs.stream()
        .filter(r -> r.endsWith(run))
        .map(r -> r.substring(0, r.length() - run.length()))
        .toList();
  }

  /** Stops the listeners (unacknowledged messages go back to the queue): none went back. */
  private static void assertAllAcknowledged(
      org.springframework.context.ApplicationContext context, String queue) {
    context.getBean(RabbitListenerEndpointRegistry.class).getListenerContainers().stream()
        .filter(
            c ->
                c instanceof AbstractMessageListenerContainer a
                    && List.of(a.getQueueNames()).contains(queue))
        .forEach(c -> ((AbstractMessageListenerContainer) c).shutdown());
    RabbitTemplate template = context.getBean(RabbitTemplate.class);
    Integer ready =
        template.execute(
            (ChannelCallback<Integer>)
                channel -> channel.queueDeclarePassive(queue).getMessageCount());
    assertThat(ready).isZero();
  }

  static Message message(String body, String messageId) {
    MessageProperties properties = new MessageProperties();
    properties.setMessageId(messageId);
    return new Message(body.getBytes(StandardCharsets.UTF_8), properties);
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 20 s");
      }
      Thread.sleep(20);
    }
  }

  static class ManualListener {
    final List<String> runs = new CopyOnWriteArrayList<>();

    @RabbitListener(
        queuesToDeclare = @Queue(name = MANUAL_QUEUE, durable = "false", autoDelete = "false"))
    void onOrder(Message message, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
        throws Exception {
      runs.add(new String(message.getBody(), StandardCharsets.UTF_8));
      channel.basicAck(tag, false);
    }
  }

  static class AckModeListener {
    final List<String> runs = new CopyOnWriteArrayList<>();

    @RabbitListener(
        id = "ackMode",
        ackMode = "MANUAL",
        queuesToDeclare = @Queue(name = ACK_MODE_QUEUE, durable = "false", autoDelete = "false"))
    void onOrder(Message message, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
        throws Exception {
      runs.add(new String(message.getBody(), StandardCharsets.UTF_8));
      channel.basicAck(tag, false);
    }
  }

  static class OwnErrorHandler {
    final AtomicInteger handled = new AtomicInteger();

    @Bean
    SimpleRabbitListenerContainerFactory rabbitListenerContainerFactory(
        ConnectionFactory connectionFactory) {
      SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
      factory.setConnectionFactory(connectionFactory);
      factory.setDefaultRequeueRejected(false);
      factory.setErrorHandler(t -> handled.incrementAndGet());
      return factory;
    }

    @RabbitListener(
        id = "ownHandler",
        queuesToDeclare = @Queue(name = OWN_HANDLER_QUEUE, durable = "false", autoDelete = "true"))
    void onOrder(Message message) {
      throw new IllegalStateException("cannot book this order");
    }
  }

  static class TransactedFactory {
    @Bean
    SimpleRabbitListenerContainerFactory rabbitListenerContainerFactory(
        ConnectionFactory connectionFactory) {
      SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
      factory.setConnectionFactory(connectionFactory);
      factory.setChannelTransacted(true);
      factory.setAutoStartup(false);
      return factory;
    }

    @RabbitListener(queues = "idempotent.boot.transacted")
    void onOrder(Message message) {}
  }
}
