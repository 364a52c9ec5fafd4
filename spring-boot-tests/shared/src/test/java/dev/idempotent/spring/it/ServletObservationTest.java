package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An HTTP request through the servlet filter the starter registers (embedded Tomcat, the
 * application's PostgreSQL store, then Redis) is one {@code idempotent.call} observation in the
 * application's registry, with {@code adapter=http}: executed for the first request, replayed for
 * its repeat.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"idempotent.web.paths=/plain/*", "idempotent.web.key=required"})
@Import(TestObservationRegistryConfiguration.class)
@DirtiesContext
class ServletObservationTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  int port;

  @Autowired TestObservationRegistry registry;
  @Autowired PlainApi api;

  @BeforeAll
  static void services() {
    TestServices.postgres();
  }

  @Autowired IdempotencyConfig config;

  @Test
  void aRequestAndItsRepeatAreObservedOnPostgres() throws Exception {
    aRequestAndItsRepeatAreObserved(port, registry, api, config, "JdbcIdempotencyStore");
  }

  /** The same application on Redis (a context of its own). */
  @Nested
  class OnRedis {
    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
      properties.add("idempotent.store", () -> "redisson");
      properties.add("idempotent.redisson.address", TestServices::redis);
    }

    @Value("${local.server.port}")
    int redisPort;

    @Autowired TestObservationRegistry redisRegistry;
    @Autowired PlainApi redisApi;
    @Autowired IdempotencyConfig redisConfig;

    @Test
    void aRequestAndItsRepeatAreObservedOnRedis() throws Exception {
      aRequestAndItsRepeatAreObserved(
          redisPort, redisRegistry, redisApi, redisConfig, "RedissonIdempotencyStore");
    }
  }

  private void aRequestAndItsRepeatAreObserved(
      int port,
      TestObservationRegistry registry,
      PlainApi api,
      IdempotencyConfig config,
      String storeClass)
      throws Exception {
    assertThat(config.defaultStore().getClass().getSimpleName()).isEqualTo(storeClass);
    registry.clear();
    String key = UUID.randomUUID().toString();
    int before = api.runs.get();
    HttpResponse<String> first = post(port, key);
    HttpResponse<String> again = post(port, key);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(api.runs.get()).isEqualTo(before + 1);

    ObservedCalls.assertExecutedThenReplayed(registry, "http");
  }

  private HttpResponse<String> post(int port, String key) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/plain/orders"))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", key)
            .header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString("2 books"))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
