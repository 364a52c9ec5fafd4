package dev.idempotent.spring.webflux.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.spring.it.ObservedCalls;
import dev.idempotent.spring.it.TestServices;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An HTTP request through the WebFlux filter the starter registers (Reactor Netty; the
 * application's memory store, then Redis, then PostgreSQL, each a context of its own) is one {@code
 * idempotent.call} observation in the application's registry, with {@code adapter=webflux}:
 * executed for the first request, replayed for its repeat.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "server.address=127.0.0.1")
@Import(WebFluxObservationTest.Registry.class)
@DirtiesContext
class WebFluxObservationTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  int port;

  @Autowired TestObservationRegistry registry;
  @Autowired ReactiveOrderApi api;
  @Autowired IdempotencyConfig config;

  @TestConfiguration
  static class Registry {
    @Bean
    TestObservationRegistry observationRegistry() {
      return TestObservationRegistry.create();
    }
  }

  @Test
  void aRequestAndItsRepeatAreObservedAsExecutedAndReplayed() throws Exception {
    aRequestAndItsRepeatAreObserved(port, registry, api, config, "CaffeineIdempotencyStore");
  }

  /** The same application on Redis. */
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
    @Autowired ReactiveOrderApi redisApi;
    @Autowired IdempotencyConfig redisConfig;

    @Test
    void aRequestAndItsRepeatAreObservedOnRedis() throws Exception {
      aRequestAndItsRepeatAreObserved(
          redisPort, redisRegistry, redisApi, redisConfig, "RedissonIdempotencyStore");
    }
  }

  /** The same application on PostgreSQL, on a pool of the store's own. */
  @Nested
  class OnPostgres {
    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry properties) {
      properties.add("idempotent.store", () -> "jdbc");
      properties.add("idempotent.jdbc.url", TestServices::postgres);
      properties.add("idempotent.jdbc.create-table", () -> "true");
    }

    @Value("${local.server.port}")
    int postgresPort;

    @Autowired TestObservationRegistry postgresRegistry;
    @Autowired ReactiveOrderApi postgresApi;
    @Autowired IdempotencyConfig postgresConfig;

    @Test
    void aRequestAndItsRepeatAreObservedOnPostgres() throws Exception {
      aRequestAndItsRepeatAreObserved(
          postgresPort, postgresRegistry, postgresApi, postgresConfig, "JdbcIdempotencyStore");
    }
  }

  private void aRequestAndItsRepeatAreObserved(
      int port,
      TestObservationRegistry registry,
      ReactiveOrderApi api,
      IdempotencyConfig config,
      String storeClass)
      throws Exception {
    assertThat(config.defaultStore().getClass().getSimpleName()).isEqualTo(storeClass);
    registry.clear();
    String key = UUID.randomUUID().toString();
    int before = api.orders();
    HttpResponse<String> first = post(port, key);
    HttpResponse<String> again = post(port, key);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(api.orders()).isEqualTo(before + 1);

    ObservedCalls.assertExecutedThenReplayed(registry, "webflux");
    TestObservationRegistryAssert.assertThat(registry)
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("scope", "api")
                    .hasLowCardinalityKeyValue("outcome", "executed"));
  }

  private HttpResponse<String> post(int port, String key) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/orders"))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", key)
            .header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString("2 books"))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
