package dev.idempotent;

/**
 * Base of every exception the library throws. Each carries the scope, a redacted key (never the
 * whole key) and the HTTP status a web layer should answer with, so one handler can map them all.
 */
public abstract class IdempotencyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String redactedKey;

  protected IdempotencyException(
      String message, String scope, String redactedKey, Throwable cause) {
    super(message, cause);
    this.scope = scope;
    this.redactedKey = redactedKey;
  }

  /** The scope of the key, or {@code null} when the error is not about one call. */
  public String scope() {
    return scope;
  }

  /** A short digest of the key ({@code key#0123456789}), or {@code null} when there is none. */
  public String redactedKey() {
    return redactedKey;
  }

  /** The HTTP status this condition maps to. */
  public abstract int httpStatus();

  static String where(String scope, String redactedKey) {
    if (scope == null) {
      return "";
    }
    return " [" + scope + (redactedKey == null ? "" : " " + redactedKey) + "]";
  }
}
