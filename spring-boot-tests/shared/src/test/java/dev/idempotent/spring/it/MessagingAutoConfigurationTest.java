package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.messaging.amqp.IdempotentRabbitErrorHandler;
import dev.idempotent.messaging.amqp.IdempotentRabbitListenerAdvice;
import dev.idempotent.messaging.camel.StoreIdempotentRepository;
import dev.idempotent.messaging.kafka.IdempotentKafkaBatchListener;
import dev.idempotent.messaging.kafka.IdempotentKafkaErrorHandler;
import dev.idempotent.messaging.kafka.IdempotentKafkaRecordListener;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration;
import dev.idempotent.spring.messaging.IdempotentCamelAutoConfiguration;
import dev.idempotent.spring.messaging.IdempotentKafkaAutoConfiguration;
import dev.idempotent.spring.messaging.IdempotentRabbitAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The messaging auto-configurations on this Boot line: off by default for the brokers, the Rabbit
 * advice and Kafka wrapper where enabled (a {@code @RabbitListener} run on RabbitMQ), the Camel
 * repository.
 */
class MessagingAutoConfigurationTest {
  static final String QUEUE = "idempotent.boot.orders";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdempotencyMemoryStoreAutoConfiguration.class,
                  IdempotencyAutoConfiguration.class,
                  StarterAutoConfigurations.firstPresent(
                      "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration",
                      "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration"),
                  StarterAutoConfigurations.firstPresent(
                      "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration",
                      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"),
                  IdempotentRabbitAutoConfiguration.class,
                  IdempotentKafkaAutoConfiguration.class,
                  IdempotentCamelAutoConfiguration.class))
          .withPropertyValues(
              "spring.rabbitmq.host=127.0.0.1",
              "spring.kafka.bootstrap-servers=127.0.0.1:9",
              "spring.rabbitmq.listener.simple.auto-startup=false");

  @Test
  void theBrokersAreOffByDefaultAndCamelGetsARepository() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(IdempotentRabbitErrorHandler.class);
          SimpleRabbitListenerContainerFactory factory =
              context.getBean(SimpleRabbitListenerContainerFactory.class);
          assertThat(factory.getAdviceChain()).isNull();
          StoreIdempotentRepository repository = context.getBean(StoreIdempotentRepository.class);
          assertThat(repository.scope()).isEqualTo("camel");
        });
  }

  @Test
  void rabbitListenerFactoriesGetTheAdviceFirstInTheirChain() {
    runner
        .withPropertyValues(
            "idempotent.messaging.rabbit.enabled=true",
            "spring.rabbitmq.listener.simple.retry.enabled=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              SimpleRabbitListenerContainerFactory factory =
                  context.getBean(SimpleRabbitListenerContainerFactory.class);
              assertThat(factory.getAdviceChain()).hasSize(2);
              assertThat(factory.getAdviceChain()[0])
                  .isInstanceOf(IdempotentRabbitListenerAdvice.class);
              assertThat(context).hasSingleBean(IdempotentRabbitErrorHandler.class);
            });
  }

  @Test
  void aRabbitListenerRunsOncePerMessageId() {
    String host = TestServices.rabbitHost();
    runner
        .withPropertyValues(
            "idempotent.messaging.rabbit.enabled=true",
            "spring.rabbitmq.host=" + host,
            "spring.rabbitmq.listener.simple.auto-startup=true")
        .withUserConfiguration(OrdersListener.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              OrdersListener listener = context.getBean(OrdersListener.class);
              RabbitTemplate template = context.getBean(RabbitTemplate.class);
              String id = "m-" + System.nanoTime();
              template.send("", QUEUE, message("first", id));
              template.send("", QUEUE, message("again", id));
              template.send("", QUEUE, message("other", id + "-2"));
              long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
              while (!listener.runs.contains("other") && System.nanoTime() < deadline) {
                Thread.sleep(20);
              }
              assertThat(listener.runs).containsExactly("first", "other");
              assertThat(
                      context
                          .getBean(Idempotency.class)
                          .inspect("", "rabbit:" + QUEUE, "amqp-message-id:" + id))
                  .isPresent();
            });
  }

  @Test
  void kafkaListenersAreWrappedBeforeTheyStart() {
    runner
        .withPropertyValues("idempotent.messaging.kafka.enabled=true")
        .withUserConfiguration(KafkaOrdersListener.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              MessageListenerContainer container =
                  context
                      .getBean(KafkaListenerEndpointRegistry.class)
                      .getListenerContainer("orders");
              assertThat(container.getContainerProperties().getMessageListener())
                  .isInstanceOf(IdempotentKafkaRecordListener.class);
              assertThat(
                      ((AbstractMessageListenerContainer<?, ?>) container).getCommonErrorHandler())
                  .isInstanceOf(IdempotentKafkaErrorHandler.class);
            });
  }

  @Test
  void kafkaRecordsAreFiledPerGroupAndTopic() {
    runner
        .withPropertyValues("idempotent.messaging.kafka.enabled=true")
        .withUserConfiguration(KafkaTwoTopicsListener.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              IdempotentKafkaRecordListener<?, ?> listener =
                  (IdempotentKafkaRecordListener<?, ?>)
                      context
                          .getBean(KafkaListenerEndpointRegistry.class)
                          .getListenerContainer("two-topics")
                          .getContainerProperties()
                          .getMessageListener();
              // the same Idempotency-Key on two topics of one group is two messages
              assertThat(listener.scopeOf("orders")).isEqualTo("kafka:shop/orders");
              assertThat(listener.scopeOf("refunds")).isEqualTo("kafka:shop/refunds");
            });
  }

  @Test
  void kafkaBatchListenersAreWrappedRecordByRecord() {
    runner
        .withPropertyValues("idempotent.messaging.kafka.enabled=true")
        .withUserConfiguration(KafkaBatchListener.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              MessageListenerContainer container =
                  context
                      .getBean(KafkaListenerEndpointRegistry.class)
                      .getListenerContainer("batch");
              assertThat(container.getContainerProperties().getMessageListener())
                  .isInstanceOf(IdempotentKafkaBatchListener.class);
              assertThat(
                      ((AbstractMessageListenerContainer<?, ?>) container).getCommonErrorHandler())
                  .isInstanceOf(IdempotentKafkaErrorHandler.class);
            });
  }

  private static Message message(String body, String messageId) {
    MessageProperties properties = new MessageProperties();
    properties.setMessageId(messageId);
    return new Message(body.getBytes(StandardCharsets.UTF_8), properties);
  }

  static class OrdersListener {
    final List<String> runs = new CopyOnWriteArrayList<>();

    @RabbitListener(queuesToDeclare = @Queue(name = QUEUE, durable = "false", autoDelete = "true"))
    void onOrder(Message message) {
      runs.add(new String(message.getBody(), StandardCharsets.UTF_8));
    }
  }

  static class KafkaOrdersListener {
    @KafkaListener(id = "orders", groupId = "orders", topics = "orders", autoStartup = "false")
    void onOrder(ConsumerRecord<String, String> record) {}
  }

  static class KafkaTwoTopicsListener {
    @KafkaListener(
        id = "two-topics",
        groupId = "shop",
        topics = {"orders", "refunds"},
        autoStartup = "false")
    void onRecord(ConsumerRecord<String, String> record) {}
  }

  static class KafkaBatchListener {
    @KafkaListener(
        id = "batch",
        groupId = "batch",
        topics = "orders",
        autoStartup = "false",
        batch = "true")
    void onOrders(List<ConsumerRecord<String, String>> records) {}
  }
}
