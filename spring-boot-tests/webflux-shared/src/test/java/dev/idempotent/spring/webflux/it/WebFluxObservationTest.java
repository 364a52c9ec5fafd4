package dev.idempotent.spring.webflux.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * An HTTP request through the WebFlux filter the starter registers (Reactor Netty, the
 * application's memory store) is one {@code idempotent.call} observation in the application's
 * registry, with {@code adapter=webflux}: executed for the first request, replayed for its repeat.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "server.address=127.0.0.1")
@DirtiesContext
class WebFluxObservationTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  int port;

  @Autowired TestObservationRegistry registry;
  @Autowired ReactiveOrderApi api;

  @TestConfiguration
  static class Registry {
    @Bean
    TestObservationRegistry observationRegistry() {
      return TestObservationRegistry.create();
    }
  }

  @Test
  void aRequestAndItsRepeatAreObservedAsExecutedAndReplayed() throws Exception {
    String key = UUID.randomUUID().toString();
    int before = api.orders();
    HttpResponse<String> first = post(key);
    HttpResponse<String> again = post(key);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(api.orders()).isEqualTo(before + 1);

    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2)
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("scope", "api")
                    .hasLowCardinalityKeyValue("adapter", "webflux")
                    .hasLowCardinalityKeyValue("outcome", "executed")
                    .hasLowCardinalityKeyValue("store", "default"))
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("adapter", "webflux")
                    .hasLowCardinalityKeyValue("outcome", "replayed")
                    .hasLowCardinalityKeyValue("store", "default"));
  }

  private HttpResponse<String> post(String key) throws Exception {
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
