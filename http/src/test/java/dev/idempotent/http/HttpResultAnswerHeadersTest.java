package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The headers a replay or a problem sets itself: what an adapter whose response keeps its headers
 * sets, and the last part of the final list {@link HttpResult#headers} gives.
 */
class HttpResultAnswerHeadersTest {
  private static final String BASE = HttpProblem.DEFAULT_TYPE_BASE;

  private static final List<Map.Entry<String, String>> RESPONSE_HEADERS =
      List.of(Map.entry("X-Frame-Options", "DENY"), Map.entry("content-type", "text/plain"));

  @Test
  void aReplaySetsItsRecordedHeadersButTheNeverReplayedOnesThenItsMarkerAndLength() {
    byte[] body = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);
    HttpResult replay =
        HttpResult.replay(
            new RecordedResponse(
                201,
                List.of(
                    Map.entry("Content-Type", "application/json"),
                    Map.entry("Set-Cookie", "stolen=1"),
                    Map.entry("Link", "<a>"),
                    Map.entry("Link", "<b>")),
                body));

    assertThat(replay.answerHeaders(BASE))
        .containsExactly(
            Map.entry("Content-Type", "application/json"),
            Map.entry("Link", "<a>"),
            Map.entry("Link", "<b>"),
            Map.entry(HttpIdempotency.REPLAYED_HEADER, "true"),
            Map.entry("Content-Length", Integer.toString(body.length)));
    assertThat(tail(replay.headers(RESPONSE_HEADERS, BASE), replay.answerHeaders(BASE).size()))
        .isEqualTo(replay.answerHeaders(BASE));
  }

  @Test
  void aProblemSetsItsTypeCachingRetryAfterAndLength() {
    HttpResult problem = HttpResult.problem(HttpProblem.IN_PROGRESS, 3);

    assertThat(problem.answerHeaders(BASE))
        .containsExactly(
            Map.entry("Content-Type", HttpProblem.MEDIA_TYPE),
            Map.entry("Cache-Control", "no-store"),
            Map.entry("Retry-After", "3"),
            Map.entry(
                "Content-Length", Integer.toString(HttpProblem.IN_PROGRESS.body(BASE).length)));
    assertThat(tail(problem.headers(RESPONSE_HEADERS, BASE), 4))
        .isEqualTo(problem.answerHeaders(BASE));
  }

  @Test
  void theListCannotBeChangedAndACapturedResponseHasNone() {
    HttpResult problem = HttpResult.problem(HttpProblem.KEY_MISSING);
    assertThatThrownBy(() -> problem.answerHeaders(BASE).add(Map.entry("X", "y")))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> HttpResult.sendCaptured().answerHeaders(BASE))
        .isInstanceOf(IllegalStateException.class);
  }

  private static List<Map.Entry<String, String>> tail(
      List<Map.Entry<String, String>> headers, int n) {
    return new ArrayList<>(headers.subList(headers.size() - n, headers.size()));
  }
}
