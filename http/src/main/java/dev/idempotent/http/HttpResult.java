package dev.idempotent.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What an adapter sends for a protected request, once the protocol has decided: the response the
 * application just made (held by the adapter), a recorded response replayed, or a problem.
 */
public final class HttpResult {
  /** The three answers. */
  public enum Kind {
    /** The application ran for this request: send what the adapter captured, as it is. */
    SEND_CAPTURED,
    /**
     * A repeat: send {@link #replayed()} (status, headers, body byte for byte) with {@code
     * Idempotent-Replayed: true}.
     */
    REPLAY,
    /**
     * Answer {@link #problem()}, with {@code Retry-After} when {@link #retryAfterSeconds()} > 0.
     */
    PROBLEM
  }

  private static final HttpResult CAPTURED = new HttpResult(Kind.SEND_CAPTURED, null, null, 0);

  private final Kind kind;
  private final RecordedResponse replayed;
  private final HttpProblem problem;
  private final long retryAfterSeconds;

  private HttpResult(
      Kind kind, RecordedResponse replayed, HttpProblem problem, long retryAfterSeconds) {
    this.kind = kind;
    this.replayed = replayed;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  static HttpResult sendCaptured() {
    return CAPTURED;
  }

  static HttpResult replay(RecordedResponse response) {
    return new HttpResult(Kind.REPLAY, response, null, 0);
  }

  /**
   * A problem the adapter answers before the protocol runs (a refused admission, a body over the
   * limit), without {@code Retry-After}.
   */
  public static HttpResult problem(HttpProblem problem) {
    return problem(java.util.Objects.requireNonNull(problem, "problem"), 0);
  }

  static HttpResult problem(HttpProblem problem, long retryAfterSeconds) {
    return new HttpResult(Kind.PROBLEM, null, problem, retryAfterSeconds);
  }

  public Kind kind() {
    return kind;
  }

  /** The recorded response of a {@link Kind#REPLAY}, else {@code null}. */
  public RecordedResponse replayed() {
    return replayed;
  }

  /** The problem of a {@link Kind#PROBLEM}, else {@code null}. */
  public HttpProblem problem() {
    return problem;
  }

  /** The {@code Retry-After} seconds of a problem, {@code 0} for none. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /**
   * The final headers of a {@link Kind#REPLAY} or a {@link Kind#PROBLEM}, in order (a name may
   * repeat): the headers the response already has ({@code responseHeaders}, set by the
   * application's outer filters), except those of a name the answer sets, followed by the answer's
   * own. Names compare without case.
   *
   * <ul>
   *   <li>A replay sets the recorded headers (never one of {@link IdempotencyRule#NEVER_REPLAYED},
   *       even when a record holds one), {@code Idempotent-Replayed: true} and the body's {@code
   *       Content-Length}.
   *   <li>A problem sets {@code Content-Type: application/problem+json}, {@code Cache-Control:
   *       no-store}, {@code Retry-After} when {@link #retryAfterSeconds()} > 0, and the {@code
   *       Content-Length} of {@link HttpProblem#body} under {@code problemTypeBase}.
   * </ul>
   *
   * Every header of {@code responseHeaders} is either in the list or replaced by it, so an adapter
   * copies the list onto its response by setting each name's first value and adding the rest, and
   * decides nothing.
   *
   * @param responseHeaders the headers the response has now, in order, {@code Content-Type}
   *     included
   * @param problemTypeBase the prefix of the problem's {@code type} URI, as its body is written
   * @throws IllegalStateException for {@link Kind#SEND_CAPTURED}, whose headers are on the response
   *     already
   */
  public List<Map.Entry<String, String>> headers(
      List<Map.Entry<String, String>> responseHeaders, String problemTypeBase) {
    List<Map.Entry<String, String>> set = answerHeaders(problemTypeBase);
    List<Map.Entry<String, String>> out = new ArrayList<>(responseHeaders.size() + set.size());
    for (Map.Entry<String, String> h : responseHeaders) {
      if (!named(set, h.getKey())) {
        out.add(Map.entry(h.getKey(), h.getValue()));
      }
    }
    out.addAll(set);
    return Collections.unmodifiableList(out);
  }

  /**
   * The headers a {@link Kind#REPLAY} or a {@link Kind#PROBLEM} sets, in order (a name may repeat):
   * the last part of {@link #headers}, without the response's own. An adapter whose response keeps
   * the headers it has (a servlet response after {@code resetBuffer()}) sets each name's first
   * value from this list and adds the rest, and has then sent exactly {@link #headers}: the
   * response's headers of a name not in this list stay as they are.
   *
   * @param problemTypeBase the prefix of the problem's {@code type} URI, as its body is written
   * @throws IllegalStateException for {@link Kind#SEND_CAPTURED}, whose headers are on the response
   *     already
   */
  public List<Map.Entry<String, String>> answerHeaders(String problemTypeBase) {
    List<Map.Entry<String, String>> set;
    switch (kind) {
      case REPLAY -> {
        List<Map.Entry<String, String>> recorded = replayed.headers();
        set = new ArrayList<>(recorded.size() + 2);
        for (Map.Entry<String, String> h : recorded) {
          if (!IdempotencyRule.NEVER_REPLAYED.contains(h.getKey())) {
            set.add(h);
          }
        }
        set.add(REPLAYED);
        set.add(Map.entry(CONTENT_LENGTH, Integer.toString(replayed.bodyLength())));
      }
      case PROBLEM -> {
        set = new ArrayList<>(4);
        set.add(PROBLEM_CONTENT_TYPE);
        set.add(NO_STORE);
        if (retryAfterSeconds > 0) {
          set.add(Map.entry("Retry-After", Long.toString(retryAfterSeconds)));
        }
        set.add(Map.entry(CONTENT_LENGTH, Integer.toString(problem.body(problemTypeBase).length)));
      }
      default ->
          throw new IllegalStateException(
              "the headers of a captured response are on the response already");
    }
    return Collections.unmodifiableList(set);
  }

  private static final Map.Entry<String, String> REPLAYED =
      Map.entry(HttpIdempotency.REPLAYED_HEADER, "true");
  private static final Map.Entry<String, String> PROBLEM_CONTENT_TYPE =
      Map.entry("Content-Type", HttpProblem.MEDIA_TYPE);
  private static final Map.Entry<String, String> NO_STORE = Map.entry("Cache-Control", "no-store");

  private static final String CONTENT_LENGTH = "Content-Length";

  private static boolean named(List<Map.Entry<String, String>> headers, String name) {
    for (Map.Entry<String, String> h : headers) {
      if (h.getKey().equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return switch (kind) {
      case SEND_CAPTURED -> "HttpResult{send captured}";
      case REPLAY -> "HttpResult{replay " + replayed.status() + "}";
      case PROBLEM -> "HttpResult{" + problem + "}";
    };
  }
}
