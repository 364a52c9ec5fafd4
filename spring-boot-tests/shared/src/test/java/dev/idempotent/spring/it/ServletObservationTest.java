package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * An HTTP request through the servlet filter the starter registers (embedded Tomcat, the
 * application's PostgreSQL store) is one {@code idempotent.call} observation in the application's
 * registry, with {@code adapter=http}: executed for the first request, replayed for its repeat.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"idempotent.web.paths=/plain/*", "idempotent.web.key=required"})
@DirtiesContext
class ServletObservationTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  int port;

  @Autowired TestObservationRegistry registry;
  @Autowired PlainApi api;

  @TestConfiguration
  static class Registry {
    @Bean
    TestObservationRegistry observationRegistry() {
      return TestObservationRegistry.create();
    }
  }

  @BeforeAll
  static void services() {
    TestServices.postgres();
  }

  @Test
  void aRequestAndItsRepeatAreObservedAsExecutedAndReplayed() throws Exception {
    assertThat(registry).isInstanceOf(ObservationRegistry.class);
    String key = UUID.randomUUID().toString();
    int before = api.runs.get();
    HttpResponse<String> first = post(key);
    HttpResponse<String> again = post(key);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(api.runs.get()).isEqualTo(before + 1);

    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo("idempotent.call", 2)
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("adapter", "http")
                    .hasLowCardinalityKeyValue("outcome", "executed")
                    .hasLowCardinalityKeyValue("store", "default"))
        .hasAnObservation(
            o ->
                o.hasNameEqualTo("idempotent.call")
                    .hasLowCardinalityKeyValue("adapter", "http")
                    .hasLowCardinalityKeyValue("outcome", "replayed")
                    .hasLowCardinalityKeyValue("store", "default"));
  }

  private HttpResponse<String> post(String key) throws Exception {
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
