package dev.idempotent.it;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.amqp.IdempotentRabbitErrorHandler;
import dev.idempotent.messaging.amqp.IdempotentRabbitListenerAdvice;
import dev.idempotent.spi.IdempotencyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * An idempotent RabbitMQ consumer in its own JVM, for the crash test: each message's business
 * effect is a row committed in PostgreSQL, under the advice on the store {@code store=} names (a
 * {@link BackendSpec}: Redis or JDBC, its records under {@code records=}). With {@code
 * holdAfter=N}, the N-th message this consumer processes is held after its effect is committed and
 * its outcome recorded, before the container acknowledges it: the process prints {@code HOLDING
 * <message-id>} and waits to be killed. Prints {@code OUTCOME <message-id> processed|replayed} for
 * every message it acknowledges. Stops when its standard input closes or reads {@code stop}.
 *
 * <p>Arguments: {@code worker=NAME rabbit=URI queue=NAME store=SPEC records=NAME postgres=JDBC-URL
 * table=NAME scope=SCOPE [holdAfter=N]}.
 */
public final class RabbitConsumerWorker {
  private RabbitConsumerWorker() {}

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

    CachingConnectionFactory connections =
        new CachingConnectionFactory(URI.create(a.get("rabbit")));
    SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connections);
    container.setQueueNames(a.get("queue"));
    container.setPrefetchCount(1);
    container.setConcurrentConsumers(1);
    container.setMessageListener(
        (Message m) -> {
          try (PreparedStatement ps = db.prepareStatement(insert)) {
            ps.setString(1, m.getMessageProperties().getMessageId());
            ps.setString(2, a.get("worker"));
            ps.executeUpdate();
            db.commit(); // the business effect
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    AtomicInteger processed = new AtomicInteger();
    // outside the idempotent advice: runs after the outcome is recorded, before the container acks
    MethodInterceptor beforeAck =
        invocation -> {
          Object result = invocation.proceed();
          if (invocation.getArguments()[1] instanceof Message m) {
            String id = m.getMessageProperties().getMessageId();
            boolean replayed = Idempotency.lastCallReplayed();
            if (!replayed && processed.incrementAndGet() == holdAfter) {
              System.out.println("HOLDING " + id);
              System.out.flush();
              Thread.sleep(Long.MAX_VALUE);
            }
            System.out.println("OUTCOME " + id + " " + (replayed ? "replayed" : "processed"));
            System.out.flush();
          }
          return result;
        };
    container.setAdviceChain(
        beforeAck,
        IdempotentRabbitListenerAdvice.builder(
                MessageIdempotency.builder(a.get("scope"))
                    .idempotency(idempotency)
                    .inProgressWait(Duration.ofSeconds(1))
                    .build())
            .build());
    container.setErrorHandler(new IdempotentRabbitErrorHandler());
    container.afterPropertiesSet();
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
    connections.destroy();
    db.close();
    store.close();
    System.exit(0);
  }
}
