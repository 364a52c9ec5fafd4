package dev.idempotent.http;

/**
 * Decides what of a response is recorded, and so what every repeat of its request is sent: drop a
 * one-time secret from the body, a header the application sets per response, or record nothing. The
 * first request's client always gets the response as the application wrote it.
 *
 * <p>It is called once per recorded response, after the rule's header list ({@link
 * IdempotencyRule#replayedHeaders()}) has been applied: by default only representation headers are
 * recorded, and cookies, authentication, hop-by-hop and framing headers ({@link
 * IdempotencyRule#NEVER_REPLAYED}) never are, even when a sanitiser puts them back. The sanitised
 * response must keep the status (a repeat is answered as the first request was); one with another
 * status, or an exception from the sanitiser, is not recorded: the key is released (logged at WARN)
 * and a retry runs again.
 */
@FunctionalInterface
public interface ResponseSanitizer {
  /**
   * @param method the request's method, upper case
   * @param path the request's path
   * @param response what would be recorded
   * @return what to record: {@code response} itself, a new {@link RecordedResponse} built from it,
   *     or {@code null} to record nothing (the key is released, so a retry runs again)
   */
  RecordedResponse sanitize(String method, String path, RecordedResponse response);

  /** Records every response as the rule's header list leaves it. The default. */
  ResponseSanitizer NONE = (method, path, response) -> response;
}
