package dev.idempotent.it;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.kafka.IdempotentKafkaRecordListener;
import dev.idempotent.spi.IdempotencyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;

/**
 * An idempotent Kafka consumer in its own JVM, for the crash test: each record's business effect is
 * a row committed in PostgreSQL, under the record listener wrapper on the store {@code store=}
 * names (a {@link BackendSpec}: Redis or JDBC, its records under {@code records=}), offsets
 * committed per record ({@code AckMode.RECORD}). With {@code holdAfter=N}, the N-th record this
 * consumer processes is held after its effect is committed and its outcome recorded, before the
 * container commits its offset: the process prints {@code HOLDING <value>} and waits to be killed.
 * Prints {@code OUTCOME <value> processed|replayed} for every record it lets the container commit.
 *
 * <p>Arguments: {@code worker=NAME bootstrap=HOST:PORT topic=NAME group=NAME store=SPEC
 * records=NAME postgres=JDBC-URL table=NAME scope=SCOPE [holdAfter=N]}.
 */
public final class KafkaConsumerWorker {
  private KafkaConsumerWorker() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    int holdAfter = Integer.parseInt(a.getOrDefault("holdAfter", "0"));
    IdempotencyStore store =
        new BackendSpec(a.get("store"))
            .openStore(a.get("worker"), Duration.ofSeconds(10), false, a.get("records"));
    Idempotency idempotency =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .defaultLease(Duration.ofSeconds(5))
                .build());
    Connection db = DriverManager.getConnection(a.get("postgres"));
    db.setAutoCommit(false);
    String insert = "INSERT INTO " + a.get("table") + " (message_id, worker) VALUES (?, ?)";

    Map<String, Object> consumer = new HashMap<>();
    consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 3_000);
    consumer.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
    consumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10);
    ContainerProperties properties = new ContainerProperties(a.get("topic"));
    properties.setGroupId(a.get("group"));
    properties.setAckMode(ContainerProperties.AckMode.RECORD);
    properties.setPollTimeout(200);
    AtomicInteger processed = new AtomicInteger();
    MessageListener<String, String> effect =
        (ConsumerRecord<String, String> r) -> {
          try (PreparedStatement ps = db.prepareStatement(insert)) {
            ps.setString(1, r.value());
            ps.setString(2, a.get("worker"));
            ps.executeUpdate();
            db.commit(); // the business effect
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    properties.setMessageListener(effect);
    KafkaMessageListenerContainer<String, String> container =
        new KafkaMessageListenerContainer<>(
            new DefaultKafkaConsumerFactory<>(
                consumer, new StringDeserializer(), new StringDeserializer()),
            properties);
    IdempotentKafkaRecordListener.install(
        container,
        MessageIdempotency.builder(a.get("scope"))
            .idempotency(idempotency)
            .inProgressWait(Duration.ofSeconds(1))
            .build(),
        null);
    @SuppressWarnings("unchecked")
    MessageListener<String, String> idempotent =
        (MessageListener<String, String>) container.getContainerProperties().getMessageListener();
    // outside the wrapper: runs after the outcome is recorded, before the container commits
    container.setupMessageListener(
        (MessageListener<String, String>)
            r -> {
              idempotent.onMessage(r);
              boolean replayed = Idempotency.lastCallReplayed();
              if (!replayed && processed.incrementAndGet() == holdAfter) {
                System.out.println("HOLDING " + r.value());
                System.out.flush();
                try {
                  Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              }
              System.out.println(
                  "OUTCOME " + r.value() + " " + (replayed ? "replayed" : "processed"));
              System.out.flush();
            });
    container.start();
    System.out.println("READY");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.equals("stop")) {
      // wait for the test to stop this consumer
    }
    container.stop();
    db.close();
    store.close();
    System.exit(0);
  }
}
