package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.http.HttpIdempotency;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Spring MVC's asynchronous handlers behind the filter the starter registers (on the embedded
 * Tomcat): recorded when the asynchronous dispatch completes, never run twice, never answered as
 * failed while their work runs.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"idempotent.web.paths=/async/*", "idempotent.web.key=required"})
@DirtiesContext
class ServletAsyncTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  int port;

  @Autowired AsyncApi api;

  @BeforeAll
  static void services() {
    TestServices.postgres();
  }

  @Test
  void aCompletableFuturesWorkRunsExactlyOnce() throws Exception {
    String key = UUID.randomUUID().toString();
    int before = api.futureRuns.get();
    CompletableFuture<HttpResponse<String>> first =
        http.sendAsync(post("/async/future?ms=800", key), HttpResponse.BodyHandlers.ofString());
    Thread.sleep(200);
    HttpResponse<String> busy =
        http.send(post("/async/future?ms=800", key), HttpResponse.BodyHandlers.ofString());
    assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
    HttpResponse<String> answered = first.get(20, TimeUnit.SECONDS);
    assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
    HttpResponse<String> again =
        http.send(post("/async/future?ms=800", key), HttpResponse.BodyHandlers.ofString());
    assertThat(again.body()).isEqualTo(answered.body());
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(api.futureRuns.get()).isEqualTo(before + 1);
  }

  @Test
  void aCallableAndAMonoAreRecordedAndReplayed() throws Exception {
    for (String path : new String[] {"/async/callable", "/async/mono"}) {
      String key = UUID.randomUUID().toString();
      HttpResponse<String> first = http.send(post(path, key), HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> again = http.send(post(path, key), HttpResponse.BodyHandlers.ofString());
      assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
      assertThat(again.body()).isEqualTo(first.body());
      assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    }
    assertThat(api.callableRuns.get()).isEqualTo(1);
    assertThat(api.monoRuns.get()).isEqualTo(1);
  }

  private HttpRequest post(String path, String key) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30))
        .header("Idempotency-Key", key)
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
  }
}
