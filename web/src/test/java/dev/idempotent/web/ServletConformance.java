package dev.idempotent.web;

import static dev.idempotent.http.conformance.HttpConformanceSuite.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.conformance.HttpConformanceSuite;
import jakarta.servlet.Filter;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The HTTP contract on a servlet container, plus what only a servlet container does: errors sent
 * through the container and asynchronous requests. A subclass names the container and the store.
 */
abstract class ServletConformance extends HttpConformanceSuite {
  private final TestApp app = new TestApp();

  /** Starts the container with {@code filters} in front of {@code app}. */
  abstract TestServer start(List<Filter> filters, TestApp app) throws Exception;

  @Override
  protected ConformanceServer start(List<HttpIdempotency> protocols) throws Exception {
    List<Filter> filters = new ArrayList<>();
    filters.add(new TestApp.TestAuthentication());
    for (HttpIdempotency p : protocols) {
      filters.add(IdempotencyFilter.builder(p).build());
    }
    TestServer server = start(filters, app);
    return new ConformanceServer() {
      @Override
      public URI base() {
        return server.base();
      }

      @Override
      public int runs(String path) {
        return app.runs(path);
      }

      @Override
      public void close() throws Exception {
        server.close();
      }
    };
  }

  @Test
  void anErrorSentThroughTheContainerIsNotRecordedNorIsItsErrorPage() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/missing", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again = post("/api/missing", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(404);
    assertThat(new String(first.body())).startsWith("error page ");
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(new String(again.body())).isNotEqualTo(new String(first.body()));
    assertThat(app.runs("/api/missing")).isEqualTo(2);
  }

  @Test
  void anAsynchronousRequestIsRecordedWhenItsDispatchCompletes() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first =
        post("/api/async-dispatch?hold=100", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again =
        post("/api/async-dispatch?hold=100", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(new String(first.body())).isEqualTo("dispatched run 1");
    assertThat(first.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).isEmpty();
    assertThat(new String(again.body())).isEqualTo("dispatched run 1");
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(app.runs("/api/async-dispatch")).isEqualTo(1);
  }

  @Test
  void anAsynchronousRequestTheApplicationCompletesItselfIsRecorded() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first =
        post("/api/async-complete?hold=100", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again =
        post("/api/async-complete?hold=100", key, new byte[0], "text/plain");
    assertThat(new String(first.body())).isEqualTo("completed run 1");
    assertThat(new String(again.body())).isEqualTo("completed run 1");
    assertThat(again.headers().firstValue(HttpIdempotency.REPLAYED_HEADER)).hasValue("true");
    assertThat(app.runs("/api/async-complete")).isEqualTo(1);
  }

  @Test
  void whileAnAsynchronousRequestRunsARepeatIs409AndItRunsOnce() throws Exception {
    String key = newKey();
    String path = "/api/async-dispatch/busy";
    CompletableFuture<HttpResponse<byte[]>> slow =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return post(path + "?hold=1500", key, new byte[0], "text/plain");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    awaitRuns(path, 1);
    HttpResponse<byte[]> busy = post(path + "?hold=1500", key, new byte[0], "text/plain");
    assertProblem(busy, 409, "request-in-progress");
    assertThat(new String(slow.get(10, TimeUnit.SECONDS).body())).isEqualTo("dispatched run 1");
    assertThat(
            post(path + "?hold=1500", key, new byte[0], "text/plain")
                .headers()
                .firstValue(HttpIdempotency.REPLAYED_HEADER))
        .hasValue("true");
    assertThat(app.runs(path)).isEqualTo(1);
  }

  @Test
  void anAsynchronousServerErrorIsSentButNotRecorded() throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/async-status?code=503", key, new byte[0], "text/plain");
    HttpResponse<byte[]> again = post("/api/async-status?code=503", key, new byte[0], "text/plain");
    assertThat(first.statusCode()).isEqualTo(503);
    assertThat(new String(first.body())).isEqualTo("async status run 1");
    assertThat(new String(again.body())).isEqualTo("async status run 2");
    assertThat(app.runs("/api/async-status")).isEqualTo(2);
  }

  /**
   * A timed-out request whose work may still run keeps its key: 503 outcome-pending, then 409 while
   * the claim is held (up to the max-hold); the work never runs twice (see AsyncTimeouts).
   */
  @Test
  void anAsynchronousRequestThatTimesOutKeepsItsKeyAndIsAnswered503OutcomePending()
      throws Exception {
    String key = newKey();
    HttpResponse<byte[]> first = post("/api/async-timeout", key, new byte[0], "text/plain");
    assertProblem(first, 503, "outcome-pending");
    HttpResponse<byte[]> again = post("/api/async-timeout", key, new byte[0], "text/plain");
    assertProblem(again, 409, "request-in-progress");
    assertThat(app.runs("/api/async-timeout")).isEqualTo(1);
  }
}
