package dev.idempotent.http;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyAmbiguousOutcomeException;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyInterruptedException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.SubmitTokenException;
import java.nio.charset.StandardCharsets;

/**
 * Every answer the library gives an HTTP client itself, as an RFC 9457 problem detail ({@code
 * application/problem+json} with {@code type}, {@code title}, {@code status} and {@code detail}):
 * the servlet filter, the WebFlux filter and the Spring Boot exception handlers all write these.
 *
 * <p>Titles and details are the library's own fixed texts, one per problem. Nothing a request sent
 * (key, token, path, body) and nothing an exception says (a key resolver's message, a getter's, a
 * method signature, an expression) ever reaches a response: those go to the log, without the key.
 */
public enum HttpProblem {
  KEY_INVALID(
      400,
      "idempotency-key-invalid",
      "Invalid Idempotency-Key",
      "Send exactly one Idempotency-Key header holding one string of 1 to 255 printable ASCII"
          + " characters; a UUID is a good key."),
  KEY_MISSING(
      400,
      "idempotency-key-missing",
      "Idempotency-Key required",
      "This endpoint requires an Idempotency-Key header: send a new unique key (a UUID, say) with"
          + " each new request and the same key with every retry of it."),
  CALLER_REQUIRED(
      400,
      "caller-required",
      "Identified caller required",
      "This endpoint accepts idempotent requests from identified callers only: authenticate, then"
          + " send the request again."),
  KEY_NOT_DERIVED(
      400,
      "idempotency-key-not-derived",
      "Idempotency key not derived",
      "The idempotency key could not be derived from the request: check the values the key is"
          + " made of."),
  KEY_REUSED(
      422,
      "idempotency-key-reused",
      "Idempotency-Key reused with a different request",
      "This key was already used with a different request (method, path, query, Content-Type or"
          + " body): use a new key for a new request."),
  IN_PROGRESS(
      409,
      "request-in-progress",
      "Request in progress",
      "A request with this key is still being processed: retry after the Retry-After delay to get"
          + " its response."),
  ALREADY_PROCESSED(
      409,
      "request-already-processed",
      "Request already processed",
      "A request with this key was already processed and its response is not sent again: use a"
          + " new key for a new request."),
  BODY_TOO_LARGE(
      413,
      "request-too-large",
      "Request body too large",
      "The request body is larger than this endpoint accepts."),
  STORE_UNAVAILABLE(
      503,
      "idempotency-store-unavailable",
      "Idempotency store unavailable",
      "The idempotency store is unavailable, so the request was not processed: retry later."),
  AMBIGUOUS_OUTCOME(
      500,
      "outcome-unknown",
      "Outcome unknown",
      "An earlier request with this key failed in a way that may have taken effect, so it is not"
          + " processed again: check the state it would have changed before sending a new"
          + " request."),
  BLOCKED(
      409,
      "request-blocked",
      "Request blocked: outcome unknown",
      "An earlier request with this key failed in a way that may have taken effect, so its outcome"
          + " is unknown and it is not processed again; retrying does not help. Check the state it"
          + " would have changed; an operator then deletes the record of this key, after which the"
          + " request may be sent again."),
  OUTCOME_PENDING(
      503,
      "outcome-pending",
      "Outcome pending",
      "The request timed out while its work went on, so its outcome is not known yet: retry with"
          + " the same key after the Retry-After delay. A retry is answered 409 while the work runs"
          + " and gets the recorded response once there is one."),
  RESPONSE_STREAMED(
      409,
      "response-streamed",
      "Response was a stream",
      "A request with this key was already processed and its response was streamed, so it cannot"
          + " be sent again: use a new key for a new request."),
  OUTCOME_UNREADABLE(
      500,
      "recorded-outcome-unreadable",
      "Recorded outcome unreadable",
      "The outcome recorded for this key cannot be read back, so the request was not processed"
          + " again."),
  MISCONFIGURED(
      500,
      "idempotency-misconfigured",
      "Idempotency misconfigured",
      "The request could not be processed because of a configuration error on the server."),
  SUBMIT_TOKEN_MISSING(
      400,
      "submit-token-missing",
      "Submit token required",
      "This form must be submitted with its submit token: reload the form and submit it again."),
  SUBMIT_TOKEN_INVALID(
      400,
      "submit-token-invalid",
      "Submit token not valid",
      "This form's submit token is not valid (it was not issued for this form and user, or it has"
          + " expired): reload the form and submit it again."),
  SUBMIT_IN_PROGRESS(
      409,
      "submit-in-progress",
      "Submit in progress",
      "This form is still being submitted: wait a moment and reload."),
  ALREADY_SUBMITTED(
      409,
      "already-submitted",
      "Already submitted",
      "This form was already submitted: reload it to submit again.");

  public static final String MEDIA_TYPE = "application/problem+json";
  public static final String DEFAULT_TYPE_BASE = "https://idempotent.dev/problems/";

  private final int status;
  private final String slug;
  private final String title;
  private final String detail;

  HttpProblem(int status, String slug, String title, String detail) {
    this.status = status;
    this.slug = slug;
    this.title = title;
    this.detail = detail;
  }

  public int status() {
    return status;
  }

  /** The last segment of the problem's {@code type} URI. */
  public String slug() {
    return slug;
  }

  public String title() {
    return title;
  }

  public String detail() {
    return detail;
  }

  /**
   * The problem an exception of the library stands for, on an HTTP answer: by its type only, never
   * by its message.
   */
  public static HttpProblem of(IdempotencyException e) {
    if (e instanceof IdempotencyKeyMismatchException) {
      return KEY_REUSED;
    }
    if (e instanceof IdempotencyInProgressException) {
      return IN_PROGRESS;
    }
    if (e instanceof IdempotencyBlockedException) {
      return BLOCKED;
    }
    if (e instanceof DuplicateRequestException) {
      return ALREADY_PROCESSED;
    }
    if (e instanceof SubmitTokenException) {
      return SUBMIT_TOKEN_INVALID;
    }
    if (e instanceof IdempotencyKeyException) {
      return KEY_NOT_DERIVED;
    }
    if (e instanceof IdempotencyStoreException || e instanceof IdempotencyInterruptedException) {
      return STORE_UNAVAILABLE;
    }
    if (e instanceof IdempotencyAmbiguousOutcomeException) {
      return AMBIGUOUS_OUTCOME;
    }
    if (e instanceof IdempotencyOutcomeException) {
      return OUTCOME_UNREADABLE;
    }
    if (e instanceof IdempotencyConfigurationException) {
      return MISCONFIGURED;
    }
    return MISCONFIGURED;
  }

  /** The JSON document of this problem, its {@code type} under {@code typeBase}. */
  public String json(String typeBase) {
    StringBuilder sb = new StringBuilder(160 + detail.length());
    sb.append("{\"type\":");
    quote(sb, typeBase + slug);
    sb.append(",\"title\":");
    quote(sb, title);
    sb.append(",\"status\":").append(status).append(",\"detail\":");
    quote(sb, detail);
    return sb.append('}').toString();
  }

  /** {@link #json} as UTF-8 bytes. */
  public byte[] body(String typeBase) {
    return json(typeBase).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Checks a {@code type} base: a URI prefix of printable ASCII without spaces or quotes.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public static String checkTypeBase(String base) {
    if (base == null
        || base.isBlank()
        || base.chars().anyMatch(c -> c <= ' ' || c > '~' || c == '"' || c == '\\')) {
      throw new IllegalArgumentException(
          "problemTypeBase must be a URI prefix, e.g. https://example.com/problems/, was '"
              + base
              + "'");
    }
    return base;
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        default -> sb.append(c);
      }
    }
    sb.append('"');
  }
}
