package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The serve mode over real HTTP on loopback. */
class OrderHttpApiTest {
  private OrderHttpApi api;
  private final OrderService orders = new OrderService();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() throws Exception {
    Idempotency.reset();
    api = new OrderHttpApi(orders, 0).start();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private HttpRequest post(String key, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/orders"))
        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return b.build();
  }

  private HttpResponse<String> send(String key, String body) throws Exception {
    return http.send(post(key, body), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void missingKeyIs400() throws Exception {
    HttpResponse<String> r = send(null, "customer=c&sku=book&quantity=1");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("null");
  }

  @Test
  void aRepeatGetsTheFirstResponseByteForByte() throws Exception {
    HttpResponse<String> first = send("k1", "customer=c&sku=book&quantity=1");
    HttpResponse<String> again = send("k1", "customer=c&sku=book&quantity=1");
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body()).contains("ord-1");
    assertThat(send("k2", "customer=c&sku=book&quantity=1").body()).contains("ord-2");
  }

  @Test
  void aReusedKeyWithADifferentBodyIs422() throws Exception {
    send("k1", "customer=c&sku=book&quantity=1");
    assertThat(send("k1", "customer=c&sku=book&quantity=5").statusCode()).isEqualTo(422);
  }

  @Test
  void aDuplicateWhileTheFirstRunsIs409WithRetryAfter() throws Exception {
    CompletableFuture<HttpResponse<String>> slow =
        http.sendAsync(post("k-slow", "customer=c&sku=slow&quantity=1"), HttpResponse.BodyHandlers.ofString());
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (orders.executions("order:k-slow") == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(orders.executions("order:k-slow")).isEqualTo(1);
    HttpResponse<String> dup = send("k-slow", "customer=c&sku=slow&quantity=1");
    assertThat(slow).isNotDone();
    assertThat(dup.statusCode()).isEqualTo(409);
    assertThat(dup.headers().firstValue("Retry-After")).isPresent();
    assertThat(slow.get().statusCode()).isEqualTo(201);
    assertThat(send("k-slow", "customer=c&sku=slow&quantity=1").body()).isEqualTo(slow.get().body());
  }
}
