package dev.idempotent.http;

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

  @Override
  public String toString() {
    return switch (kind) {
      case SEND_CAPTURED -> "HttpResult{send captured}";
      case REPLAY -> "HttpResult{replay " + replayed.status() + "}";
      case PROBLEM -> "HttpResult{" + problem + "}";
    };
  }
}
