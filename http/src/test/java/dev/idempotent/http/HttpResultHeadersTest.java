package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The final header list the protocol hands both filters for a replay or a problem: the response's
 * own headers merged with the answer's, never-replayed headers dropped, and each problem's headers.
 */
class HttpResultHeadersTest {
  private static final String BASE = HttpProblem.DEFAULT_TYPE_BASE;

  @Test
  void aReplayReplacesTheResponsesHeadersOfTheRecordedNamesAndKeepsTheRest() {
    byte[] body = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);
    RecordedResponse recorded =
        new RecordedResponse(
            201,
            List.of(
                Map.entry("Content-Type", "application/json"),
                Map.entry("Link", "<a>"),
                Map.entry("Link", "<b>")),
            body);
    List<Map.Entry<String, String>> own =
        List.of(
            Map.entry("X-Frame-Options", "DENY"),
            Map.entry("content-type", "text/plain"),
            Map.entry("Set-Cookie", "SESSION=1"),
            Map.entry("link", "<outer>"));

    assertThat(HttpResult.replay(recorded).headers(own, BASE))
        .containsExactly(
            Map.entry("X-Frame-Options", "DENY"),
            Map.entry("Set-Cookie", "SESSION=1"),
            Map.entry("Content-Type", "application/json"),
            Map.entry("Link", "<a>"),
            Map.entry("Link", "<b>"),
            Map.entry(HttpIdempotency.REPLAYED_HEADER, "true"),
            Map.entry("Content-Length", Integer.toString(body.length)));
  }

  /** A record that holds a never-replayed header (an older rule's, say) still never sends it. */
  @Test
  void aReplayNeverSendsANeverReplayedHeaderFromTheRecord() {
    RecordedResponse recorded =
        new RecordedResponse(
            200,
            List.of(
                Map.entry("set-cookie", "stolen=1"),
                Map.entry("Authorization", "Bearer x"),
                Map.entry("Transfer-Encoding", "chunked"),
                Map.entry("ETag", "\"v1\"")),
            new byte[0]);

    assertThat(HttpResult.replay(recorded).headers(List.of(), BASE))
        .containsExactly(
            Map.entry("ETag", "\"v1\""),
            Map.entry(HttpIdempotency.REPLAYED_HEADER, "true"),
            Map.entry("Content-Length", "0"));
  }

  @ParameterizedTest
  @EnumSource(HttpProblem.class)
  void everyProblemIsSentAsProblemJsonNotCachedWithItsLength(HttpProblem problem) {
    List<Map.Entry<String, String>> own =
        List.of(
            Map.entry("Content-Type", "text/html"),
            Map.entry("Vary", "Origin"),
            Map.entry("Cache-Control", "max-age=60"));

    assertThat(HttpResult.problem(problem).headers(own, BASE))
        .containsExactly(
            Map.entry("Vary", "Origin"),
            Map.entry("Content-Type", HttpProblem.MEDIA_TYPE),
            Map.entry("Cache-Control", "no-store"),
            Map.entry("Content-Length", Integer.toString(problem.body(BASE).length)));
  }

  @ParameterizedTest
  @EnumSource(HttpProblem.class)
  void aProblemWithADelayCarriesRetryAfter(HttpProblem problem) {
    String base = "https://example.com/p/";
    assertThat(HttpResult.problem(problem, 7).headers(List.of(), base))
        .containsExactly(
            Map.entry("Content-Type", HttpProblem.MEDIA_TYPE),
            Map.entry("Cache-Control", "no-store"),
            Map.entry("Retry-After", "7"),
            Map.entry("Content-Length", Integer.toString(problem.body(base).length)));
  }

  @Test
  void aProblemWithoutADelayKeepsARetryAfterTheResponseHas() {
    assertThat(
            HttpResult.problem(HttpProblem.KEY_INVALID)
                .headers(List.of(Map.entry("Retry-After", "3")), BASE))
        .startsWith(Map.entry("Retry-After", "3"))
        .doesNotContain(Map.entry("Retry-After", "0"));
  }

  @Test
  void theRulesRetryAfterIsTheOutcomePendingDelay() {
    IdempotencyRule rule =
        IdempotencyRule.builder("orders")
            .paths("/orders")
            .retryAfter(java.time.Duration.ofMillis(2_500))
            .build();
    HttpIdempotency protocol = HttpIdempotency.builder().rule(rule).build();

    HttpResult pending = protocol.outcomePending(rule);

    assertThat(pending.problem()).isEqualTo(HttpProblem.OUTCOME_PENDING);
    assertThat(pending.headers(List.of(), BASE)).contains(Map.entry("Retry-After", "3"));
  }

  @Test
  void aCapturedResponseHasNoListToCopy() {
    assertThatThrownBy(() -> HttpResult.sendCaptured().headers(List.of(), BASE))
        .isInstanceOf(IllegalStateException.class);
  }
}
