package dev.idempotent.http.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.HttpProblem;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.CookieManager;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP contract of idempotent requests, checked over HTTP against a real server: every adapter
 * of {@link HttpIdempotency} (the servlet filter on Jetty and Tomcat, the WebFlux filter on Reactor
 * Netty) runs these same tests, the way every store runs the store contract kit.
 *
 * <p>An adapter's test starts its server with, in this order: an authentication step that makes the
 * {@code X-Test-User} header the caller (the principal), one adapter filter per protocol given, and
 * the conformance application. The application answers every path {@code /<prefix><route>} (the
 * prefix is the path's first segment), counting its runs per path (without the query), after
 * sleeping {@code ?ms=N} milliseconds when asked:
 *
 * <ul>
 *   <li>{@code GET /<prefix>/form?path=P}: issues a submit token through the adapter for the form
 *       that posts to {@code P}, bound to the request's subject (the caller, else a session the
 *       adapter keeps with a cookie); the body is the token, {@code text/plain}.
 *   <li>{@code /orders}: reads the body; status 201; {@code Location: /orders/<n>?x=%20y}; {@code
 *       X-Trace: run-<n>}; two {@code Link} values set under two spellings of the name ({@code
 *       </orders>; rel="collection"}, then {@code </orders/<n>/items>; rel="items"}); a cookie
 *       {@code seen=<n>}; {@code Content-Type: application/octet-stream}; the body the bytes 0 to
 *       255, {@code n}, the request body and {@code 0xFF}, written in pieces.
 *   <li>{@code /text}: {@code text/plain;charset=UTF-8}, {@code zażółć run <n>}, written in two
 *       pieces.
 *   <li>{@code /status?code=C}: status {@code C}, {@code text/plain}, {@code status run <n>}.
 *   <li>{@code /throw}: fails with an exception, which the server answers with 500.
 *   <li>{@code /big?bytes=N}: {@code N} bytes, each {@code n}, {@code application/octet-stream}.
 *   <li>{@code /redirect}: 303 to {@code /done/<n>}.
 *   <li>{@code /submit}: the form field {@code qty} must be a positive number, else 422 with {@code
 *       text/plain} {@code quantity must be a positive number}; otherwise 303 to {@code
 *       /<prefix>/orders/<n>?qty=<qty>&note=<the note field, URL-encoded as a form>}.
 *   <li>any other route: {@code text/plain} {@code ran <n>}, after sleeping {@code ?hold=N} ms.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class HttpConformanceSuite {
  public static final int LIMIT = 64 * 1024;
  protected static final String PROBLEM_BASE = HttpProblem.DEFAULT_TYPE_BASE;

  /** A server of the adapter under test, running the conformance application. */
  public interface ConformanceServer extends AutoCloseable {
    URI base();

    /** How often the application ran for {@code path} (without the query). */
    int runs(String path);

    @Override
    void close() throws Exception;
  }

  private ConformanceServer server;
  private IdempotencyStore store;
  private Idempotency idem;
  private HttpIdempotency main;
  private final HttpClient http = client(null);

  /**
   * Starts the server of the adapter under test: the test authentication, then one adapter filter
   * per protocol (in order), then the conformance application.
   */
  protected abstract ConformanceServer start(List<HttpIdempotency> protocols) throws Exception;

  /** A fresh store for the protocols' {@link Idempotency} instance. */
  protected abstract IdempotencyStore store() throws Exception;

  /** The server under test. */
  protected final ConformanceServer server() {
    return server;
  }

  @BeforeAll
  void startServer() throws Exception {
    store = store();
    idem = Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
    main =
        HttpIdempotency.builder()
            .idempotency(idem)
            .rule(
                IdempotencyRule.builder("api")
                    .paths("/api/*")
                    .key(IdempotencyRule.Key.REQUIRED)
                    .maxRequestBodyBytes(LIMIT)
                    .maxResponseBodyBytes(LIMIT)
                    .build())
            .rule(IdempotencyRule.builder("open").paths("/open/*").build())
            .rule(
                IdempotencyRule.builder("wait")
                    .paths("/wait/*")
                    .onInProgress(OnInProgress.WAIT)
                    .build())
            .rule(
                IdempotencyRule.builder("members")
                    .paths("/members/*")
                    .anonymous(IdempotencyRule.Anonymous.REFUSE)
                    .build())
            .rule(
                IdempotencyRule.builder("ambiguous-record")
                    .paths("/ambiguous-record/*")
                    .onAmbiguousFailure(OnAmbiguousFailure.RECORD)
                    .build())
            .rule(
                IdempotencyRule.builder("ambiguous-block")
                    .paths("/ambiguous-block/*")
                    .onAmbiguousFailure(OnAmbiguousFailure.BLOCK)
                    .build())
            .rule(IdempotencyRule.submitTokens("form-a").paths("/form-a/submit").build())
            .rule(
                IdempotencyRule.submitTokens("form-r")
                    .paths("/form-r/submit")
                    .onDuplicate(OnDuplicate.REJECT)
                    .build())
            .rule(
                IdempotencyRule.submitTokens("form-t")
                    .paths("/form-t/submit")
                    .ttl(Duration.ofSeconds(1))
                    .build())
            .build();
    HttpIdempotency down =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(
                    IdempotencyConfig.builder().defaultStore(new DownStore()).build()))
            .rule(
                IdempotencyRule.builder("down")
                    .paths("/down/*")
                    .retryAfter(Duration.ofSeconds(3))
                    .build())
            .build();
    HttpIdempotency downOpen =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(
                    IdempotencyConfig.builder()
                        .defaultStore(new DownStore())
                        .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                        .build()))
            .rule(IdempotencyRule.builder("downopen").paths("/downopen/*").build())
            .build();
    server = start(List.of(main, down, downOpen));
  }

  @AfterAll
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  private int runs(String path) {
    return server.runs(path);
  }

  // ---- ambiguous failures ----

  @Test
  void aServerErrorRecordedAsAmbiguousIsReplayedAndTheWorkNeverRunsTwice() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first =
        post("/ambiguous-record/status?code=504", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again =
        post("/ambiguous-record/status?code=504", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(504);
    assertThat(again.statusCode()).isEqualTo(504);
    assertThat(new String(again.body())).isEqualTo("status run 1");
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");

    String key2 = newKey();
    assertThat(post("/ambiguous-record/throw", key2, new byte[0], "text/plain").statusCode())
        .isEqualTo(500);
    assertProblem(
        post("/ambiguous-record/throw", key2, new byte[0], "text/plain"), 500, "outcome-unknown");
    assertThat(runs("/ambiguous-record/throw")).isEqualTo(1);
    assertThat(runs("/ambiguous-record/status")).isEqualTo(1);
  }

  @Test
  void aServerErrorThatBlocksItsKeyAnswersEveryRepeat409BlockedUntilTheRecordIsDeleted()
      throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first =
        post("/ambiguous-block/status?code=503", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(503);
    assertThat(new String(first.body())).isEqualTo("status run 1");
    for (int i = 0; i < 2; i++) {
      HttpResponse<byte[]> blocked =
          post("/ambiguous-block/status?code=503", key, new byte[0], "text/plain");
      // its own answer: not "in progress" (no run will finish it), and no invitation to retry
      assertProblem(blocked, 409, "request-blocked");
      assertThat(blocked.headers().firstValue("Retry-After")).isEmpty();
    }
    HttpIdempotency.RecordLocation where =
        main.locate("POST", "/ambiguous-block/status", null, key).orElseThrow();
    assertThat(idem.delete(where.store(), where.scope(), where.key())).isTrue();
    HttpResponse<byte[]> afterDelete =
        post("/ambiguous-block/status?code=201", key, new byte[0], "text/plain");
    assertThat(afterDelete.statusCode()).isEqualTo(201);
    assertThat(runs("/ambiguous-block/status")).isEqualTo(2);
  }

  // ---- what a client can and cannot choose ----

  @Test
  void everyPathOfARuleIsKeptInTheRulesScopeWithThePathInTheKey() throws Exception {
    String key = newKey();
    for (int i = 0; i < 20; i++) {
      assertThat(post("/api/c/" + i, key, new byte[0], "text/plain").statusCode()).isEqualTo(200);
    }
    for (int i = 0; i < 20; i++) {
      HttpIdempotency.RecordLocation where =
          main.locate("POST", "/api/c/" + i, null, key).orElseThrow();
      assertThat(where.scope()).isEqualTo("api");
      assertThat(idem.inspect(where.store(), where.scope(), where.key())).isPresent();
    }
    assertThat(main.locate("POST", "/elsewhere", null, key)).isEmpty();
  }

  @Test
  void theSameKeyOnAnotherPathOrMethodIsAnotherRequest() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/one", key, "x".getBytes(), "text/plain");
    HttpResponse<byte[]> other = post("/api/two", key, "x".getBytes(), "text/plain");
    HttpResponse<byte[]> patched =
        send(
            request("/api/one")
                .header("Idempotency-Key", key)
                .header("Content-Type", "text/plain")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("x")));
    assertThat(new String(first.body())).isEqualTo("ran 1");
    assertThat(new String(other.body())).isEqualTo("ran 1");
    assertThat(other.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(patched.statusCode()).isEqualTo(200);
    assertThat(patched.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(runs("/api/one")).isEqualTo(2);
  }

  /**
   * An anonymous client cannot reach a user's record, whatever path it sends: not by the same path
   * (no 422 that would tell it the key was used, no replay), nor by a path that ends in what looked
   * like the user's part of a scope before.
   */
  @Test
  void noPathOrKeyAnAnonymousClientSendsReachesAUsersRecord() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> alice =
        send(
            postRequest("/api/theirs", key, "a".getBytes(), "text/plain")
                .header("X-Test-User", "alice"));
    HttpResponse<byte[]> anonymous = post("/api/theirs", key, "b".getBytes(), "text/plain");
    HttpResponse<byte[]> crafted =
        post("/api/theirs%20c" + "A".repeat(22), key, "a".getBytes(), "text/plain");
    assertThat(new String(alice.body())).isEqualTo("ran 1");
    assertThat(anonymous.statusCode()).isEqualTo(200);
    assertThat(new String(anonymous.body())).isEqualTo("ran 2");
    assertThat(crafted.statusCode()).isEqualTo(200);
    assertThat(crafted.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    HttpResponse<byte[]> aliceAgain =
        send(
            postRequest("/api/theirs", key, "a".getBytes(), "text/plain")
                .header("X-Test-User", "alice"));
    assertThat(new String(aliceAgain.body())).isEqualTo("ran 1");
  }

  @Test
  void aRuleThatRefusesAnonymousCallersAnswers400AndNeverRuns() throws Exception {
    assertProblem(
        post("/members/join", newKey(), new byte[0], "text/plain"), 400, "caller-required");
    assertThat(runs("/members/join")).isZero();
    HttpResponse<byte[]> bob =
        send(
            postRequest("/members/join", newKey(), new byte[0], "text/plain")
                .header("X-Test-User", "bob"));
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(runs("/members/join")).isEqualTo(1);
  }

  @Test
  void anOperatorHoldingTheClientsKeyFindsAndDeletesItsRecord() throws Exception {
    String key = newKey();
    send(
        postRequest("/api/support", key, new byte[0], "text/plain").header("X-Test-User", "carol"));
    HttpIdempotency.RecordLocation where =
        main.locate("post", "/api/support", "carol", key).orElseThrow();
    assertThat(idem.inspect(where.store(), where.scope(), where.key()))
        .hasValueSatisfying(r -> assertThat(r.status().name()).isEqualTo("COMPLETED"));
    assertThat(idem.delete(where.store(), where.scope(), where.key())).isTrue();
    HttpResponse<byte[]> again =
        send(
            postRequest("/api/support", key, new byte[0], "text/plain")
                .header("X-Test-User", "carol"));
    assertThat(new String(again.body())).isEqualTo("ran 2");
  }

  // ---- Idempotency-Key ----

  @Test
  void theFirstRequestRunsAndARepeatReplaysTheWholeResponseByteForByte() throws Exception {
    String key = newKey();
    byte[] body = binaryBody();
    HttpResponse<byte[]> first = post("/api/orders", key, body, "application/octet-stream");
    HttpResponse<byte[]> again = post("/api/orders", key, body, "application/octet-stream");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(first.headers().firstValue("Set-Cookie"))
        .hasValueSatisfying(c -> assertThat(c).startsWith("seen="));
    assertThat(first.headers().firstValue("X-Trace")).hasValue("run-1");
    assertThat(first.body()).hasSize(256 + 1 + body.length + 1);

    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().allValues("Location"))
        .isEqualTo(first.headers().allValues("Location"))
        .containsExactly("/orders/1?x=%20y");
    assertThat(again.headers().allValues("Link"))
        .as("a header with two values, set in two cases, is replayed once with both, in order")
        .isEqualTo(first.headers().allValues("Link"))
        .containsExactly("</orders>; rel=\"collection\"", "</orders/1/items>; rel=\"items\"");
    assertThat(again.headers().firstValue("Content-Type"))
        .isEqualTo(first.headers().firstValue("Content-Type"));
    assertThat(again.headers().firstValue("Set-Cookie")).isEmpty();
    assertThat(again.headers().firstValue("X-Trace")).isEmpty();
    assertThat(runs("/api/orders")).isEqualTo(1);
  }

  @Test
  void aWriterAndAFlushInTheMiddleAreCapturedAndReplayed() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/text", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again = post("/api/text", key, new byte[0], "text/plain");
    assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("zażółć run 1");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("Content-Type"))
        .hasValueSatisfying(
            ct ->
                assertThat(ct.toLowerCase().replace(" ", ""))
                    .isEqualTo("text/plain;charset=utf-8"));
    assertThat(runs("/api/text")).isEqualTo(1);
  }

  @Test
  void aRedirectIsRecordedWithItsLocation() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/redirect", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again = post("/api/redirect", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(303);
    assertThat(again.statusCode()).isEqualTo(303);
    assertThat(again.headers().allValues("Location"))
        .isEqualTo(first.headers().allValues("Location"));
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(runs("/api/redirect")).isEqualTo(1);
  }

  @Test
  void quotedAndBareKeysAreTheSameKey() throws Exception {
    String key = newKey();
    post("/api/plain", key, new byte[0], "text/plain");
    HttpResponse<byte[]> quoted = post("/api/plain", "\"" + key + "\"", new byte[0], "text/plain");
    assertThat(quoted.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(runs("/api/plain")).isEqualTo(1);
  }

  @Test
  void badKeysAre400ProblemsAndNothingRuns() throws Exception {
    int before = runs("/api/bad");
    assertProblem(
        send(
            request("/api/bad")
                .header("Idempotency-Key", "a")
                .header("Idempotency-Key", "b")
                .POST(HttpRequest.BodyPublishers.noBody())),
        400,
        "idempotency-key-invalid");
    assertProblem(
        post("/api/bad", "\"\"", new byte[0], "text/plain"), 400, "idempotency-key-invalid");
    assertProblem(
        post("/api/bad", "x".repeat(256), new byte[0], "text/plain"),
        400,
        "idempotency-key-invalid");
    assertProblem(
        post("/api/bad", "\"unterminated", new byte[0], "text/plain"),
        400,
        "idempotency-key-invalid");
    assertProblem(
        post("/api/bad", "a, b", new byte[0], "text/plain"), 400, "idempotency-key-invalid");
    assertThat(rawStatusLineAndBody("/api/bad", "Idempotency-Key: caf\u00e9\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains(PROBLEM_BASE + "idempotency-key-invalid");
    String longest = (newKey() + "x".repeat(255)).substring(0, 255);
    HttpResponse<byte[]> accepted = post("/api/bad", longest, new byte[0], "text/plain");
    assertThat(accepted.statusCode()).isEqualTo(200);
    assertThat(accepted.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(runs("/api/bad")).isEqualTo(before + 1);
  }

  @Test
  void aMissingKeyIs400WhereRequiredAndPassesThroughElsewhere() throws Exception {
    assertProblem(
        send(request("/api/plain").POST(HttpRequest.BodyPublishers.noBody())),
        400,
        "idempotency-key-missing");
    HttpResponse<byte[]> open1 =
        send(request("/open/plain").POST(HttpRequest.BodyPublishers.noBody()));
    HttpResponse<byte[]> open2 =
        send(request("/open/plain").POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(open1.statusCode()).isEqualTo(200);
    assertThat(open2.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(runs("/open/plain")).isEqualTo(2);
  }

  @Test
  void otherMethodsPassThroughUntouched() throws Exception {
    String key = newKey();
    for (int i = 0; i < 2; i++) {
      HttpResponse<byte[]> r =
          send(
              request("/api/put")
                  .header("Idempotency-Key", key)
                  .PUT(HttpRequest.BodyPublishers.ofString("x")));
      assertThat(r.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    }
    assertThat(runs("/api/put")).isEqualTo(2);
  }

  @Test
  void theSameKeyWithAnotherRequestIs422() throws Exception {
    String key = newKey();
    post("/api/mismatch", key, "a".getBytes(), "text/plain");
    assertProblem(
        post("/api/mismatch", key, "b".getBytes(), "text/plain"), 422, "idempotency-key-reused");
    assertProblem(
        post("/api/mismatch", key, "a".getBytes(), "application/json"),
        422,
        "idempotency-key-reused");
    assertProblem(
        post("/api/mismatch?page=2", key, "a".getBytes(), "text/plain"),
        422,
        "idempotency-key-reused");
    assertThat(
            post("/api/mismatch", key, "a".getBytes(), "text/plain")
                .headers()
                .firstValue(HttpIdempotency.REPLAYED_HEADER))
        .hasValue("true");
    assertThat(runs("/api/mismatch")).isEqualTo(1);
  }

  @Test
  void serverErrorsAndExceptionsAreNotRecorded() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/status?code=503", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again = post("/api/status?code=503", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(503);
    assertThat(new String(first.body())).isEqualTo("status run 1");
    assertThat(new String(again.body())).isEqualTo("status run 2");
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();

    String key2 = newKey();
    assertThat(post("/api/throw", key2, new byte[0], "text/plain").statusCode()).isEqualTo(500);
    assertThat(post("/api/throw", key2, new byte[0], "text/plain").statusCode()).isEqualTo(500);
    assertThat(runs("/api/throw")).isEqualTo(2);
  }

  @Test
  void clientErrorsAreRecorded() throws Exception {
    String key = newKey();
    post("/api/status?code=404", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again = post("/api/status?code=404", key, new byte[0], "text/plain");
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(runs("/api/status")).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aBodyOverTheLimitIs413WithOrWithoutContentLength() throws Exception {
    byte[] big = new byte[LIMIT + 1];
    assertProblem(
        post("/api/large", newKey(), big, "application/octet-stream"), 413, "request-too-large");
    HttpResponse<byte[]> chunked =
        send(
            request("/api/large")
                .header("Idempotency-Key", newKey())
                .header("Content-Type", "application/octet-stream")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))));
    assertProblem(chunked, 413, "request-too-large");
    assertThat(
            post("/api/large", newKey(), new byte[LIMIT], "application/octet-stream").statusCode())
        .isEqualTo(200);
    assertThat(runs("/api/large")).isEqualTo(1);
  }

  @Test
  void aResponseOverTheLimitIsSentWholeButNotRecorded() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first =
        post("/api/big?bytes=" + (LIMIT * 2 + 7), key, new byte[0], "text/plain");
    HttpResponse<byte[]> again =
        post("/api/big?bytes=" + (LIMIT * 2 + 7), key, new byte[0], "text/plain");
    assertThat(first.body()).hasSize(LIMIT * 2 + 7);
    assertThat(again.body()).hasSize(LIMIT * 2 + 7);
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(first.body()[0]).isNotEqualTo(again.body()[0]);
  }

  @Test
  void aRepeatWhileTheFirstRunsIs409WithAShortRetryAfter() throws Exception {
    String key = newKey();
    CompletableFuture<HttpResponse<byte[]>> slow =
        http.sendAsync(
            postRequest("/api/slow?hold=1500", key, new byte[0], "text/plain").build(),
            HttpResponse.BodyHandlers.ofByteArray());
    awaitRuns("/api/slow", 1);
    HttpResponse<byte[]> busy = post("/api/slow?hold=1500", key, new byte[0], "text/plain");
    assertProblem(busy, 409, "request-in-progress");
    assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    HttpResponse<byte[]> after = post("/api/slow?hold=1500", key, new byte[0], "text/plain");
    assertThat(after.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(runs("/api/slow")).isEqualTo(1);
  }

  @Test
  void sixtyFourConcurrentRequestsWithOneKeyRunOnce() throws Exception {
    String key = newKey();
    List<CompletableFuture<HttpResponse<byte[]>>> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      all.add(
          http.sendAsync(
              postRequest("/api/concurrent?ms=300", key, "same".getBytes(), "text/plain").build(),
              HttpResponse.BodyHandlers.ofByteArray()));
    }
    int executed = 0;
    int answeredOtherwise = 0;
    for (CompletableFuture<HttpResponse<byte[]>> f : all) {
      HttpResponse<byte[]> r = f.get(30, TimeUnit.SECONDS);
      boolean replayed = r.headers().firstValue(HttpIdempotency.REPLAYED_HEADER).isPresent();
      if (r.statusCode() == 200 && !replayed) {
        executed++;
        assertThat(new String(r.body())).isEqualTo("ran 1");
      } else if (r.statusCode() == 409) {
        assertProblem(r, 409, "request-in-progress");
        answeredOtherwise++;
      } else {
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(new String(r.body())).isEqualTo("ran 1");
        answeredOtherwise++;
      }
    }
    assertThat(executed).isEqualTo(1);
    assertThat(answeredOtherwise).isEqualTo(63);
    assertThat(runs("/api/concurrent")).isEqualTo(1);
  }

  @Test
  void withWaitARepeatWaitsForTheFirstAndGetsItsResponse() throws Exception {
    String key = newKey();
    List<CompletableFuture<HttpResponse<byte[]>>> all = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      all.add(
          http.sendAsync(
              postRequest("/wait/slow?ms=300", key, new byte[0], "text/plain").build(),
              HttpResponse.BodyHandlers.ofByteArray()));
    }
    for (CompletableFuture<HttpResponse<byte[]>> f : all) {
      HttpResponse<byte[]> r = f.get(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(new String(r.body())).isEqualTo("ran 1");
    }
    assertThat(runs("/wait/slow")).isEqualTo(1);
  }

  @Test
  void oneCallersKeyNeverReplaysAnotherCallersResponse() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> alice =
        send(
            postRequest("/api/mine", key, new byte[0], "text/plain")
                .header("X-Test-User", "alice"));
    HttpResponse<byte[]> bob =
        send(postRequest("/api/mine", key, new byte[0], "text/plain").header("X-Test-User", "bob"));
    HttpResponse<byte[]> aliceAgain =
        send(
            postRequest("/api/mine", key, new byte[0], "text/plain")
                .header("X-Test-User", "alice"));
    assertThat(new String(alice.body())).isEqualTo("ran 1");
    assertThat(new String(bob.body())).isEqualTo("ran 2");
    assertThat(bob.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(new String(aliceAgain.body())).isEqualTo("ran 1");
    assertThat(aliceAgain.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
  }

  @Test
  void aStoreFailureIs503WithRetryAfterWhenFailClosedAndRunsWhenFailOpen() throws Exception {
    HttpResponse<byte[]> closed = post("/down/plain", newKey(), new byte[0], "text/plain");
    assertProblem(closed, 503, "idempotency-store-unavailable");
    assertThat(closed.headers().firstValue("Retry-After")).hasValue("3");
    assertThat(runs("/down/plain")).isZero();
    HttpResponse<byte[]> open = post("/downopen/plain", newKey(), new byte[0], "text/plain");
    assertThat(open.statusCode()).isEqualTo(200);
    assertThat(new String(open.body())).isEqualTo("ran 1");
  }

  // ---- submit tokens ----

  @Test
  void anIssuedTokenSubmitsOnceAndARepeatGetsTheSameRedirect() throws Exception {
    HttpClient user = client(new CookieManager());
    String token = issue(user, "/form-a");
    HttpResponse<byte[]> first = submit(user, "/form-a", token, "qty=2&note=caf%C3%A9+au+lait");
    HttpResponse<byte[]> again = submit(user, "/form-a", token, "qty=2&note=caf%C3%A9+au+lait");
    assertThat(first.statusCode()).isEqualTo(303);
    assertThat(first.headers().firstValue("Location"))
        .hasValueSatisfying(l -> assertThat(l).endsWith("?qty=2&note=caf%C3%A9+au+lait"));
    assertThat(again.statusCode()).isEqualTo(303);
    assertThat(again.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(runs("/form-a/submit")).as("the repeat did not run").isEqualTo(orderNumber(first));
  }

  /** The run count the submit saw, from the order number in its redirect. */
  private int orderNumber(HttpResponse<byte[]> submitted) {
    String location = submitted.headers().firstValue("Location").orElseThrow();
    Matcher m = Pattern.compile("/orders/(\\d+)").matcher(location);
    assertThat(m.find()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  @Test
  void theTokenMayComeInAHeader() throws Exception {
    HttpClient user = client(new CookieManager());
    String token = issue(user, "/form-a");
    HttpResponse<byte[]> r =
        user.send(
            request("/form-a/submit")
                .header("Submit-Token", token)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("qty=3"))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(303);
  }

  @Test
  void forgedOtherUsersAndExpiredTokensGetOneAnswer() throws Exception {
    HttpClient alice = client(new CookieManager());
    HttpClient bob = client(new CookieManager());
    String aliceToken = issue(alice, "/form-a");
    issue(bob, "/form-a");
    int before = runs("/form-a/submit");
    HttpResponse<byte[]> forged = submit(alice, "/form-a", "A".repeat(32), "qty=1");
    HttpResponse<byte[]> garbage = submit(alice, "/form-a", "not-a-token", "qty=1");
    HttpResponse<byte[]> stolen = submit(bob, "/form-a", aliceToken, "qty=1");
    HttpResponse<byte[]> noSession = submit(client(null), "/form-a", aliceToken, "qty=1");
    HttpClient carol = client(new CookieManager());
    String shortToken = issue(carol, "/form-t");
    Thread.sleep(1500);
    HttpResponse<byte[]> expired = submit(carol, "/form-t", shortToken, "qty=1");
    for (HttpResponse<byte[]> r : List.of(forged, garbage, stolen, noSession, expired)) {
      assertProblem(r, 400, "submit-token-invalid");
      assertThat(r.body()).isEqualTo(forged.body());
    }
    assertThat(new String(stolen.body())).doesNotContain(aliceToken);
    assertThat(runs("/form-a/submit")).isEqualTo(before);
    assertThat(runs("/form-t/submit")).isZero();
  }

  @Test
  void aMissingTokenIs400() throws Exception {
    HttpClient user = client(new CookieManager());
    issue(user, "/form-a");
    assertProblem(
        user.send(
            request("/form-a/submit")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("qty=1"))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray()),
        400,
        "submit-token-missing");
  }

  @Test
  void concurrentSubmitsWithOneTokenRunOnceAndAllGetItsRedirect() throws Exception {
    HttpClient user = client(new CookieManager());
    String token = issue(user, "/form-a");
    int before = runs("/form-a/submit");
    List<CompletableFuture<HttpResponse<byte[]>>> all = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      all.add(
          user.sendAsync(
              submitRequest("/form-a", token, "qty=5", "?ms=300").build(),
              HttpResponse.BodyHandlers.ofByteArray()));
    }
    List<Optional<String>> locations = new ArrayList<>();
    for (CompletableFuture<HttpResponse<byte[]>> f : all) {
      HttpResponse<byte[]> r = f.get(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(303);
      locations.add(r.headers().firstValue("Location"));
    }
    assertThat(locations).containsOnly(locations.get(0));
    assertThat(runs("/form-a/submit")).isEqualTo(before + 1);
  }

  @Test
  void aFailedSubmitDoesNotBurnTheToken() throws Exception {
    HttpClient user = client(new CookieManager());
    String token = issue(user, "/form-a");
    HttpResponse<byte[]> invalid = submit(user, "/form-a", token, "qty=0");
    assertThat(invalid.statusCode()).isEqualTo(422);
    assertThat(new String(invalid.body())).isEqualTo("quantity must be a positive number");
    HttpResponse<byte[]> corrected = submit(user, "/form-a", token, "qty=4");
    assertThat(corrected.statusCode()).isEqualTo(303);
    assertThat(corrected.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(corrected.headers().firstValue("Location"))
        .hasValueSatisfying(l -> assertThat(l).contains("qty=4"));
  }

  @Test
  void rejectingDuplicateSubmitsAnswers409AlreadySubmitted() throws Exception {
    HttpClient user = client(new CookieManager());
    String token = issue(user, "/form-r");
    assertThat(submit(user, "/form-r", token, "qty=1").statusCode()).isEqualTo(303);
    assertProblem(submit(user, "/form-r", token, "qty=1"), 409, "already-submitted");
    assertThat(runs("/form-r/submit")).isEqualTo(1);
  }

  // ---- helpers ----

  private String issue(HttpClient user, String prefix) throws Exception {
    HttpResponse<String> r =
        user.send(
            request(prefix + "/form?path=" + prefix + "/submit").GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).matches("[A-Za-z0-9_-]{32}");
    return r.body();
  }

  private HttpResponse<byte[]> submit(HttpClient user, String prefix, String token, String form)
      throws Exception {
    return user.send(
        submitRequest(prefix, token, form, "").build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private HttpRequest.Builder submitRequest(
      String prefix, String token, String form, String query) {
    return request(prefix + "/submit" + query)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("_submit_token=" + token + "&" + form));
  }

  public static HttpClient client(CookieManager cookies) {
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER);
    if (cookies != null) {
      b.cookieHandler(cookies);
    }
    return b.build();
  }

  protected final HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(server.base().resolve(path)).timeout(Duration.ofSeconds(30));
  }

  protected final HttpRequest.Builder postRequest(
      String path, String key, byte[] body, String contentType) {
    return request(path)
        .header("Idempotency-Key", key)
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
  }

  protected final HttpResponse<byte[]> post(
      String path, String key, byte[] body, String contentType) throws Exception {
    return send(postRequest(path, key, body, contentType));
  }

  protected final HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
    HttpRequest built = request.build();
    try {
      return http.send(built, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      // The client reused a pooled connection the server had just closed (after a 413, say): not
      // one response byte
      // came back, so the server never handled the request and sending it again is no second
      // request.
      if (e.getMessage() == null || !e.getMessage().contains("received no bytes")) {
        throw e;
      }
      return http.send(built, HttpResponse.BodyHandlers.ofByteArray());
    }
  }

  /** A POST written on a socket, for header bytes the HTTP client will not send. */
  private String rawStatusLineAndBody(String path, String headerLines) throws IOException {
    URI base = server.base();
    try (Socket s = new Socket(base.getHost(), base.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST "
                  + path
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n"
                  + headerLines
                  + "\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  protected final void awaitRuns(String route, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (runs(route) < n) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /**
   * The response is the problem of that slug and status, exactly: the library's fixed title and
   * detail, nothing the request sent.
   */
  public static void assertProblem(HttpResponse<byte[]> r, int status, String slug) {
    String body = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(r.statusCode()).as(body).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue(HttpProblem.MEDIA_TYPE);
    HttpProblem problem = null;
    for (HttpProblem p : HttpProblem.values()) {
      if (p.slug().equals(slug)) {
        problem = p;
      }
    }
    assertThat(problem).as("a problem with the slug " + slug).isNotNull();
    assertThat(problem.status()).isEqualTo(status);
    assertThat(body).isEqualTo(problem.json(PROBLEM_BASE));
  }

  protected static String newKey() {
    return UUID.randomUUID().toString();
  }

  private static byte[] binaryBody() {
    byte[] b = new byte[1024];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  /** A store that is down: every operation fails. */
  static final class DownStore implements IdempotencyStore {
    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      throw new IllegalStateException("connection refused");
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      throw new IllegalStateException("connection refused");
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      throw new IllegalStateException("connection refused");
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      throw new IllegalStateException("connection refused");
    }

    @Override
    public boolean delete(RecordKey key) {
      throw new IllegalStateException("connection refused");
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      throw new IllegalStateException("connection refused");
    }
  }
}
