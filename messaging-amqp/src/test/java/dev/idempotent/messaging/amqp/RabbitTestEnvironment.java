package dev.idempotent.messaging.amqp;

import dev.idempotent.tck.TestBackends;
import java.net.URI;
import java.util.Optional;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * Where the tests find RabbitMQ: {@code IDEMPOTENT_RABBIT_URL}, else the local broker on
 * 127.0.0.1:5672 (guest/guest) when it answers, else the test fails (when {@code CI=true}) or is
 * skipped with a {@code SKIPPED} console line naming the variable.
 */
final class RabbitTestEnvironment {
  static final String URL_VARIABLE = "IDEMPOTENT_RABBIT_URL";
  private static final String LOCAL_URL = "amqp://guest:guest@127.0.0.1:5672";

  private RabbitTestEnvironment() {}

  static CachingConnectionFactory connectionFactory() {
    Optional<String> url = TestBackends.configuredOrLocal(URL_VARIABLE, LOCAL_URL, 5672);
    if (url.isEmpty()) {
      TestBackends.unavailable(
          URL_VARIABLE + " is not set and nothing answers on 127.0.0.1:5672",
          "start RabbitMQ (rabbitmq-server -detached) or set " + URL_VARIABLE + "=" + LOCAL_URL);
    }
    CachingConnectionFactory factory = new CachingConnectionFactory(URI.create(url.get()));
    factory.setChannelCacheSize(10);
    return factory;
  }
}
