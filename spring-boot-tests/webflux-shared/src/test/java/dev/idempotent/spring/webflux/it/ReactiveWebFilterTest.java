package dev.idempotent.spring.webflux.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.HttpProblem;
import dev.idempotent.webflux.IdempotencyWebFilter;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.web.server.WebFilter;

/**
 * A reactive Spring Boot application on a real Reactor Netty server (a free port on 127.0.0.1): the
 * starter registers the web filter from properties, and library exceptions escaping WebFlux
 * handlers are problem details as in Spring MVC.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "server.address=127.0.0.1")
class ReactiveWebFilterTest {
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  @Value("${local.server.port}")
  int port;

  @Autowired ApplicationContext context;
  @Autowired ReactiveOrderApi api;

  @Test
  void theApplicationIsReactiveOnReactorNettyWithTheWebFilterRegistered() throws Exception {
    // WebServerApplicationContext moved between Boot 3.5 and 4.0: asked by name
    Object server = context.getClass().getMethod("getWebServer").invoke(context);
    assertThat(server.getClass().getSimpleName()).isEqualTo("NettyWebServer");
    assertThat(context.getBeansOfType(WebFilter.class).values())
        .hasAtLeastOneElementOfType(IdempotencyWebFilter.class);
    assertThat(context.getBean(HttpIdempotency.class).rules()).hasSize(2);
  }

  @Test
  void aRepeatIsReplayedAndTheHandlerRunsOnce() throws Exception {
    String key = UUID.randomUUID().toString();
    int before = api.orders();
    HttpResponse<String> first = send(post("/api/orders", key, "2 books"));
    HttpResponse<String> again = send(post("/api/orders", key, "2 books"));
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body()).endsWith(" of 2 books");
    assertThat(again.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(api.orders()).isEqualTo(before + 1);
  }

  @Test
  void concurrentRequestsWithOneKeyRunTheHandlerOnce() throws Exception {
    String key = UUID.randomUUID().toString();
    int before = api.orders();
    List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      all.add(
          http.sendAsync(
              post("/api/orders?ms=300", key, "same").build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    int ran = 0;
    for (CompletableFuture<HttpResponse<String>> f : all) {
      HttpResponse<String> r = f.get(30, TimeUnit.SECONDS);
      if (r.statusCode() == 201
          && r.headers().firstValue(HttpIdempotency.REPLAYED_HEADER).isEmpty()) {
        ran++;
      } else {
        assertThat(r.statusCode()).as(r.body()).isIn(201, 409);
      }
    }
    assertThat(ran).isEqualTo(1);
    assertThat(api.orders()).isEqualTo(before + 1);
  }

  @Test
  void theFiltersAnswersAreProblemDetails() throws Exception {
    HttpResponse<String> missing =
        send(
            request("/api/orders")
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("x")));
    assertProblem(missing, HttpProblem.KEY_MISSING);
    String key = UUID.randomUUID().toString();
    send(post("/api/orders", key, "a"));
    assertProblem(send(post("/api/orders", key, "b")), HttpProblem.KEY_REUSED);
  }

  @Test
  void aLibraryExceptionFromAHandlerIsAProblemDetail() throws Exception {
    HttpResponse<String> refused = send(post("/api/refused", UUID.randomUUID().toString(), ""));
    assertThat(refused.statusCode()).isEqualTo(HttpProblem.ALREADY_PROCESSED.status());
    assertThat(refused.headers().firstValue("Content-Type")).hasValue(HttpProblem.MEDIA_TYPE);
    assertThat(refused.body())
        .contains(
            "\"type\":\""
                + HttpProblem.DEFAULT_TYPE_BASE
                + HttpProblem.ALREADY_PROCESSED.slug()
                + "\"")
        .contains("\"title\":\"" + HttpProblem.ALREADY_PROCESSED.title() + "\"")
        .doesNotContain("redacted")
        .doesNotContain("payments");
  }

  @Test
  void aSubmitTokenFromTheFormSubmitsOnceAndARepeatGetsTheSameRedirect() throws Exception {
    HttpClient user =
        HttpClient.newBuilder()
            .cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    String token =
        user.send(request("/form").GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    assertThat(token).matches("[A-Za-z0-9_-]{32}");
    int before = api.submits();
    HttpRequest submit =
        request("/checkout")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("_submit_token=" + token + "&qty=3"))
            .build();
    HttpResponse<String> first = user.send(submit, HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> again = user.send(submit, HttpResponse.BodyHandlers.ofString());
    assertThat(first.statusCode()).isEqualTo(303);
    assertThat(first.headers().firstValue("Location"))
        .hasValueSatisfying(l -> assertThat(l).endsWith("?qty=3"));
    assertThat(again.statusCode()).isEqualTo(303);
    assertThat(again.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(api.submits()).isEqualTo(before + 1);

    HttpResponse<String> stranger =
        http.send(submit, HttpResponse.BodyHandlers.ofString()); // no session cookie
    assertProblem(stranger, HttpProblem.SUBMIT_TOKEN_INVALID);
  }

  private static void assertProblem(HttpResponse<String> r, HttpProblem problem) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(problem.status());
    assertThat(r.headers().firstValue("Content-Type")).hasValue(HttpProblem.MEDIA_TYPE);
    assertThat(r.body()).isEqualTo(problem.json(HttpProblem.DEFAULT_TYPE_BASE));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30));
  }

  private HttpRequest.Builder post(String path, String key, String body) {
    return request(path)
        .header("Idempotency-Key", key)
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
