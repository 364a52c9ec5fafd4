package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.http.HttpProblem;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Over real HTTP: a replay, and the library's exceptions as RFC 9457 problem details (409, 422,
 * 400).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class HttpProblemDetailsTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  int port;

  @Autowired OrderApi api;

  @BeforeAll
  static void services() {
    TestServices.postgres();
  }

  @Test
  void aRepeatOfTheSameRequestIsReplayed() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first = post("/orders", key, "{\"item\":\"book\",\"quantity\":2}");
    HttpResponse<String> again = post("/orders", key, "{\"item\":\"book\",\"quantity\":2}");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body()).contains("\"item\":\"book\"");
  }

  @Test
  void theSameKeyWithAnotherPayloadIs422() throws Exception {
    String key = UUID.randomUUID().toString();
    assertThat(post("/orders", key, "{\"item\":\"book\",\"quantity\":2}").statusCode())
        .isEqualTo(200);
    HttpResponse<String> other = post("/orders", key, "{\"item\":\"book\",\"quantity\":3}");
    assertProblem(other, 422, "idempotency-key-reused");
  }

  @Test
  void aMissingKeyIs400WithTheLibrarysOwnText() throws Exception {
    HttpResponse<String> blank = post("/orders", null, "{\"item\":\"book\",\"quantity\":2}");
    assertProblem(blank, 400, "idempotency-key-not-derived");
    assertThat(blank.body())
        .contains("\"detail\":\"" + HttpProblem.KEY_NOT_DERIVED.detail() + "\"")
        .doesNotContain("Exception")
        .doesNotContain("#key")
        .doesNotContain("OrderApi");
  }

  /** Hardening item 7: a resolver's own message never reaches the client. */
  @Test
  void aKeyResolversFailureMessageNeverReachesTheClient() throws Exception {
    HttpResponse<String> leaky =
        post("/leaky", UUID.randomUUID().toString(), "{\"item\":\"book\",\"quantity\":2}");
    assertProblem(leaky, 400, "idempotency-key-not-derived");
    assertThat(leaky.body())
        .contains("\"title\":\"" + HttpProblem.KEY_NOT_DERIVED.title() + "\"")
        .contains("\"detail\":\"" + HttpProblem.KEY_NOT_DERIVED.detail() + "\"")
        .doesNotContain("s3cr3t")
        .doesNotContain("10.1.2.3")
        .doesNotContain("LeakyKeyResolver")
        .doesNotContain("leaky(");
  }

  @Test
  void aRepeatWhileTheFirstRunsIs409WithRetryAfter() throws Exception {
    String key = UUID.randomUUID().toString();
    CountDownLatch gate = new CountDownLatch(1);
    api.slowGate = gate;
    CompletableFuture<HttpResponse<String>> first =
        http.sendAsync(request("/slow", key, ""), HttpResponse.BodyHandlers.ofString());
    try {
      assertThat(api.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
      HttpResponse<String> repeat = post("/slow", key, "");
      assertProblem(repeat, 409, "request-in-progress");
      assertThat(repeat.headers().firstValue("Retry-After")).contains("1");
    } finally {
      gate.countDown();
    }
    assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  /** Hardening item 14: a blocked key is its own answer, with no invitation to retry. */
  @Test
  void aBlockedKeyIs409BlockedWithoutRetryAfter() {
    org.springframework.http.ResponseEntity<org.springframework.http.ProblemDetail> answer =
        new dev.idempotent.spring.IdempotencyProblemDetails()
            .handle(
                new dev.idempotent.IdempotencyBlockedException(
                    "orders", "key#0", Duration.ofHours(24), "java.net.SocketTimeoutException"));
    assertThat(answer.getStatusCode().value()).isEqualTo(409);
    assertThat(answer.getHeaders().getFirst("Retry-After")).isNull();
    assertThat(answer.getBody().getType())
        .isEqualTo(URI.create(HttpProblem.DEFAULT_TYPE_BASE + "request-blocked"));
    assertThat(answer.getBody().getDetail()).isEqualTo(HttpProblem.BLOCKED.detail());
  }

  @Test
  void theHealthComponentReportsEachStore() throws Exception {
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(uri("/actuator/health/idempotency")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"default\":\"UP\"");
  }

  @Test
  void theActuatorEndpointListsTheScopesInUse() throws Exception {
    assertThat(
            post("/orders", UUID.randomUUID().toString(), "{\"item\":\"pen\",\"quantity\":1}")
                .statusCode())
        .isEqualTo(200);
    HttpResponse<String> listed =
        http.send(
            HttpRequest.newBuilder(uri("/actuator/idempotency")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
    assertThat(listed.body())
        .contains("\"scopes\":{")
        .contains(
            "\"api-orders\":\"@Idempotent on dev.idempotent.spring.it.OrderApi.order(String,"
                + " OrderRequest)\"");
  }

  @Test
  void theActuatorEndpointShowsARecordAndForceExpiresIt() throws Exception {
    String key = UUID.randomUUID().toString();
    assertThat(post("/orders", key, "{\"item\":\"pen\",\"quantity\":1}").statusCode())
        .isEqualTo(200);
    int executions = api.executions();
    String record = "/actuator/idempotency?scope=api-orders&key=" + key;

    HttpResponse<String> shown =
        http.send(
            HttpRequest.newBuilder(uri(record)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(shown.statusCode()).isEqualTo(200);
    assertThat(shown.body())
        .contains("\"status\":\"COMPLETED\"")
        .contains("\"outcome\":\"VALUE\"")
        .doesNotContain(key);

    HttpResponse<String> deleted =
        http.send(
            HttpRequest.newBuilder(uri(record)).DELETE().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(deleted.statusCode()).isEqualTo(200);
    assertThat(deleted.body()).contains("\"deleted\":true");
    assertThat(
            http.send(
                    HttpRequest.newBuilder(uri(record)).GET().build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(404);

    // the next call of the key runs the method again
    assertThat(post("/orders", key, "{\"item\":\"pen\",\"quantity\":1}").statusCode())
        .isEqualTo(200);
    assertThat(api.executions()).isEqualTo(executions + 1);
  }

  private static void assertProblem(HttpResponse<String> response, int status, String slug) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    assertThat(response.body())
        .contains("\"status\":" + status)
        .contains("\"type\":\"https://idempotent.dev/problems/" + slug + "\"");
  }

  private HttpResponse<String> post(String path, String key, String json) throws Exception {
    return http.send(request(path, key, json), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String path, String key, String json) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return b.build();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
