package dev.idempotent.http;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the application answered to a protected request, as an adapter captured it (the servlet
 * filter's {@code ServletResponseCapture}, the WebFlux filter's {@code ExchangeResponseCapture}):
 * status, headers and the whole body; or the fact that the response went to the client as it was
 * written (larger than the rule's limit, or an error sent through the container), so it cannot be
 * recorded.
 */
public final class ApplicationResponse {
  private final int status;
  private final List<Map.Entry<String, String>> headers;
  private final byte[] body;
  private final String unrecordable;
  private final boolean streamed;

  private ApplicationResponse(
      int status,
      List<Map.Entry<String, String>> headers,
      byte[] body,
      String unrecordable,
      boolean streamed) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.unrecordable = unrecordable;
    this.streamed = streamed;
  }

  /**
   * A whole response, held by the adapter until the protocol has decided.
   *
   * @param headers every response header in order (a name may repeat), {@code Content-Type}
   *     included; the rule decides which are recorded
   * @param body the body; not copied
   */
  public static ApplicationResponse of(
      int status, List<Map.Entry<String, String>> headers, byte[] body) {
    return new ApplicationResponse(
        status, List.copyOf(headers), Objects.requireNonNull(body, "body"), null, false);
  }

  /**
   * A response that went (or goes) to the client as it is written, so it is not recorded.
   *
   * @param why for the log, e.g. "larger than 1048576 bytes"
   */
  public static ApplicationResponse unrecordable(int status, String why) {
    return new ApplicationResponse(
        status, List.of(), new byte[0], Objects.requireNonNull(why), false);
  }

  /**
   * A streaming response (server-sent events, NDJSON) that went to the client as it flowed, and
   * ended: the key is completed with a record that says so, and a repeat gets {@link
   * HttpProblem#RESPONSE_STREAMED} instead of running the work again.
   */
  public static ApplicationResponse streamed(int status) {
    return new ApplicationResponse(status, List.of(), new byte[0], null, true);
  }

  /** Whether the response was a stream passed through as it flowed ({@link #streamed}). */
  public boolean isStreamed() {
    return streamed;
  }

  public int status() {
    return status;
  }

  public List<Map.Entry<String, String>> headers() {
    return headers;
  }

  public byte[] body() {
    return body;
  }

  /** Why the response cannot be recorded, or {@code null} when it can. */
  public String unrecordable() {
    return unrecordable;
  }
}
