package dev.idempotent.web.internal;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Every answer the filter makes itself, as an RFC 9457 problem detail ({@code
 * application/problem+json} with {@code type}, {@code title}, {@code status} and {@code detail}).
 * This is the only place that writes one. Details never contain a key or a token.
 */
public enum Problem {
  KEY_INVALID(400, "idempotency-key-invalid", "Invalid Idempotency-Key"),
  KEY_MISSING(400, "idempotency-key-missing", "Idempotency-Key required"),
  KEY_REUSED(422, "idempotency-key-reused", "Idempotency-Key reused with a different request"),
  IN_PROGRESS(409, "request-in-progress", "Request in progress"),
  BODY_TOO_LARGE(413, "request-too-large", "Request body too large"),
  STORE_UNAVAILABLE(503, "idempotency-store-unavailable", "Idempotency store unavailable"),
  SUBMIT_TOKEN_MISSING(400, "submit-token-missing", "Submit token required"),
  SUBMIT_TOKEN_INVALID(400, "submit-token-invalid", "Submit token not valid"),
  ALREADY_SUBMITTED(409, "already-submitted", "Already submitted");

  public static final String MEDIA_TYPE = "application/problem+json";

  private final int status;
  private final String slug;
  private final String title;

  Problem(int status, String slug, String title) {
    this.status = status;
    this.slug = slug;
    this.title = title;
  }

  public int status() {
    return status;
  }

  public String slug() {
    return slug;
  }

  public String title() {
    return title;
  }

  /**
   * Writes this problem as the whole response.
   *
   * @param typeBase prefix of the {@code type} URI; the problem's slug is appended
   * @param retryAfterSeconds the {@code Retry-After} header, or {@code 0} for none
   */
  public void write(
      HttpServletResponse response, String typeBase, String detail, long retryAfterSeconds)
      throws IOException {
    byte[] body = json(typeBase, detail).getBytes(StandardCharsets.UTF_8);
    response.resetBuffer();
    response.setStatus(status);
    response.setContentType(MEDIA_TYPE);
    response.setHeader("Cache-Control", "no-store");
    if (retryAfterSeconds > 0) {
      response.setHeader("Retry-After", Long.toString(retryAfterSeconds));
    }
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** The JSON document of this problem. */
  public String json(String typeBase, String detail) {
    StringBuilder sb = new StringBuilder(160 + detail.length());
    sb.append("{\"type\":");
    quote(sb, typeBase + slug);
    sb.append(",\"title\":");
    quote(sb, title);
    sb.append(",\"status\":").append(status).append(",\"detail\":");
    quote(sb, detail);
    return sb.append('}').toString();
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
