package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The serve mode over real HTTP on loopback: the JSON API's answers and the form's
 * post/redirect/get.
 */
class OrderWebAppTest {
  private static final String BOOK =
      "{\"item\":\"book\",\"quantity\":1,\"email\":\"ada@example.com\"}";
  private static final Pattern TOKEN = Pattern.compile("name=\"_submit_token\" value=\"([^\"]+)\"");

  private OrderWebApp app;
  private HttpClient http;

  @BeforeEach
  void start() throws Exception {
    Idempotency.reset();
    app = new OrderWebApp("127.0.0.1", 0).start();
    http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
    Idempotency.reset();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + app.port() + path);
  }

  private HttpRequest api(String path, String key, String json) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return b.build();
  }

  private HttpResponse<String> send(HttpRequest request) throws Exception {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(15)).build());
  }

  private HttpResponse<String> postForm(String token, String item, String quantity, String email)
      throws Exception {
    String form =
        "_submit_token="
            + enc(token)
            + "&item="
            + enc(item)
            + "&quantity="
            + enc(quantity)
            + "&email="
            + enc(email);
    return send(
        HttpRequest.newBuilder(uri("/orders"))
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String token(HttpResponse<String> page) {
    Matcher m = TOKEN.matcher(page.body());
    assertThat(m.find()).as("a token in the form: %s", page.body()).isTrue();
    return m.group(1);
  }

  @Test
  void theFirstRequestWithAKeyCreatesTheOrder() throws Exception {
    HttpResponse<String> r = send(api("/api/orders", "k1", BOOK));
    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.headers().firstValue("Location")).hasValue("/orders/ord-1");
    assertThat(r.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(r.body())
        .isEqualTo(
            "{\"id\":\"ord-1\",\"item\":\"book\",\"quantity\":1,\"email\":\"ada@example.com\"}");
  }

  @Test
  void aRepeatGetsTheFirstResponseByteForByteMarkedReplayed() throws Exception {
    HttpResponse<String> first = send(api("/api/orders", "k1", BOOK));
    HttpResponse<String> again = send(api("/api/orders", "k1", BOOK));
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("Location")).hasValue("/orders/ord-1");
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(send(api("/api/orders", "k2", BOOK)).body()).contains("ord-2");
    assertThat(app.orders().count()).isEqualTo(2);
  }

  @Test
  void aMissingKeyIs400() throws Exception {
    HttpResponse<String> r = send(api("/api/orders", null, BOOK));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    assertThat(app.orders().count()).isZero();
  }

  @Test
  void aReusedKeyWithAnotherBodyIs422() throws Exception {
    send(api("/api/orders", "k1", BOOK));
    HttpResponse<String> r =
        send(api("/api/orders", "k1", BOOK.replace("\"quantity\":1", "\"quantity\":2")));
    assertThat(r.statusCode()).isEqualTo(422);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void aRepeatWhileTheFirstRunsIs409WithRetryAfter() throws Exception {
    CompletableFuture<HttpResponse<String>> slow =
        http.sendAsync(
            api("/api/orders?delayMs=3000", "k-slow", BOOK), HttpResponse.BodyHandlers.ofString());
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (app.orders().count() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    HttpResponse<String> dup = send(api("/api/orders?delayMs=3000", "k-slow", BOOK));
    assertThat(slow).isNotDone();
    assertThat(dup.statusCode()).isEqualTo(409);
    assertThat(dup.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(slow.get().statusCode()).isEqualTo(201);
    assertThat(send(api("/api/orders?delayMs=3000", "k-slow", BOOK)).body())
        .isEqualTo(slow.get().body());
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void anInvalidOrderIs400AndRecordedForItsKey() throws Exception {
    String bad = BOOK.replace("\"quantity\":1", "\"quantity\":100");
    HttpResponse<String> r = send(api("/api/orders", "k-bad", bad));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("Quantity must be a whole number from 1 to 99.");
    assertThat(send(api("/api/orders", "k-bad", bad)).headers().firstValue("Idempotent-Replayed"))
        .hasValue("true");
    assertThat(app.orders().count()).isZero();
  }

  @Test
  void theFormPostsRedirectsAndARepeatOfItsTokenRedirectsToTheSameOrder() throws Exception {
    HttpResponse<String> form = get("/");
    assertThat(form.statusCode()).isEqualTo(200);
    String token = token(form);

    HttpResponse<String> placed = postForm(token, "lamp", "2", "ada@example.com");
    assertThat(placed.statusCode()).isEqualTo(303);
    assertThat(placed.headers().firstValue("Location")).hasValue("/orders/ord-1");
    HttpResponse<String> again = postForm(token, "lamp", "2", "ada@example.com");
    assertThat(again.statusCode()).isEqualTo(303);
    assertThat(again.headers().firstValue("Location")).hasValue("/orders/ord-1");

    HttpResponse<String> page = get("/orders/ord-1");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("Order ord-1", "lamp", "ada@example.com");
    assertThat(get("/orders").body())
        .contains(
            "<span id=\"orders\">1</span> orders placed from "
                + "<span id=\"submits\">2</span> submits");
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void anInvalidFormComesBackWithItsTokenAndTheCorrectedSubmitPlacesTheOrder() throws Exception {
    String token = token(get("/"));
    HttpResponse<String> invalid = postForm(token, "lamp", "0", "ada@example.com");
    assertThat(invalid.statusCode()).isEqualTo(422);
    assertThat(invalid.body()).contains("Quantity must be a whole number from 1 to 99.");
    assertThat(token(invalid)).isEqualTo(token);

    HttpResponse<String> placed = postForm(token, "lamp", "5", "ada@example.com");
    assertThat(placed.statusCode()).isEqualTo(303);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void aFormWithoutAnIssuedTokenIsRefused() throws Exception {
    get("/");
    assertThat(
            postForm("forged-token-forged-token-forged1", "lamp", "1", "ada@example.com")
                .statusCode())
        .isEqualTo(400);
    assertThat(app.orders().count()).isZero();
  }

  /**
   * The curl lines of docs/web.md (the block marked as tested by this class), sent as written (the
   * one ending in {@code &} in the background), get the answers the page says: 201, the replay,
   * 422, 400, then 409 while the first of the last two runs, and its 201.
   */
  @Test
  void theCurlLinesOfTheWebPageGetTheAnswersItShows() throws Exception {
    String page = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/web.md"));
    int marker =
        page.indexOf(
            "<!-- tested-by: examples/src/test/java/dev/idempotent/examples/"
                + "OrderWebAppTest.java -->");
    assertThat(marker)
        .as("the curl block of docs/web.md, marked as tested by this class")
        .isNotNegative();
    String block = page.substring(page.indexOf("```sh\n", marker) + "```sh\n".length());
    block = block.substring(0, block.indexOf("```")).replace("\\\n", " ");
    Pattern key = Pattern.compile("-H 'Idempotency-Key: ([^']+)'");
    Pattern body = Pattern.compile("-d '([^']+)'");
    Pattern url = Pattern.compile("'?http://127\\.0\\.0\\.1:8080(/[^' ]*)'?");
    List<String> answers = new ArrayList<>();
    CompletableFuture<HttpResponse<String>> background = null;
    for (String line : block.split("\n")) {
      int at = line.indexOf("curl ");
      if (line.startsWith("#") || at < 0) {
        continue;
      }
      String curl = line.substring(at);
      Matcher k = key.matcher(curl);
      Matcher b = body.matcher(curl);
      Matcher u = url.matcher(curl);
      assertThat(b.find() && u.find()).as("a body and a URL in: %s", curl).isTrue();
      HttpRequest request = api(u.group(1), k.find() ? k.group(1) : null, b.group(1));
      if (curl.strip().endsWith("&")) {
        background = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long before = app.orders().count();
        while (app.orders().count() == before && System.nanoTime() < deadline) {
          Thread.sleep(
              5); // the README sleeps a second; here: until the first has started placing the order
        }
      } else {
        HttpResponse<String> r = send(request);
        answers.add(
            r.statusCode()
                + r.headers().firstValue("Idempotent-Replayed").map(v -> " replayed").orElse(""));
      }
    }
    assertThat(background).isNotNull();
    answers.add(background.get().statusCode() + "");
    assertThat(answers).containsExactly("201", "201 replayed", "422", "400", "409", "201");
    assertThat(page)
        .contains(
            "# 201 Created, Location: /orders/ord-1, "
                + "{\"id\":\"ord-1\",\"item\":\"book\",\"quantity\":1,\"email\":\"ada@example.com\"}");
  }

  @Test
  void anUnknownOrderIs404() throws Exception {
    assertThat(get("/orders/ord-9").statusCode()).isEqualTo(404);
  }
}
