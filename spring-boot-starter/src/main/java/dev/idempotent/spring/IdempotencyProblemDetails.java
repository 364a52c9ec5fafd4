package dev.idempotent.spring;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.SubmitTokenException;
import java.net.URI;
import java.time.Duration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers every {@link IdempotencyException} that escapes a Spring MVC handler with an RFC 9457
 * problem detail of its {@link IdempotencyException#httpStatus() status}: 409 with {@code
 * Retry-After} for a call still in progress, 422 for a key reused with another payload, 400 for a
 * bad key, 503 with {@code Retry-After} when the store fails. It has the lowest precedence, so the
 * application's own {@code @ExceptionHandler} for these exceptions wins; {@code
 * idempotent.problem-details.enabled=false} turns it off. The {@code type} URIs are those of the
 * idempotency servlet filter.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class IdempotencyProblemDetails {
  /** The prefix of every problem {@code type}. */
  public static final String TYPE_BASE = "https://idempotent.dev/problems/";

  /** The most a client is asked to wait before retrying a call in progress. */
  public static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(1);

  /** The problem detail for {@code e}. */
  @ExceptionHandler(IdempotencyException.class)
  public ResponseEntity<ProblemDetail> handle(IdempotencyException e) {
    HttpStatus status = HttpStatus.resolve(e.httpStatus());
    if (status == null) {
      status = HttpStatus.INTERNAL_SERVER_ERROR;
    }
    ProblemDetail problem = ProblemDetail.forStatus(status);
    problem.setType(URI.create(TYPE_BASE + slug(e)));
    problem.setTitle(title(e, status));
    // a 5xx detail says what the client can do; the reason (store addresses, settings) is for the
    // logs
    problem.setDetail(
        !status.is5xxServerError()
            ? e.getMessage()
            : e instanceof IdempotencyStoreException
                ? "the idempotency store cannot be reached: retry later"
                : "the request could not be made idempotent");
    ResponseEntity.BodyBuilder response =
        ResponseEntity.status(status).header(HttpHeaders.CACHE_CONTROL, "no-store");
    if (e instanceof IdempotencyInProgressException inProgress) {
      response.header(
          HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(inProgress.leaseRemaining())));
    } else if (status == HttpStatus.SERVICE_UNAVAILABLE) {
      response.header(HttpHeaders.RETRY_AFTER, Long.toString(MAX_RETRY_AFTER.toSeconds()));
    }
    return response.body(problem);
  }

  /**
   * {@code min(leaseRemaining, 1 s)} in whole seconds, at least 1: the holder usually finishes well
   * within it.
   */
  static long retryAfterSeconds(Duration leaseRemaining) {
    Duration d =
        leaseRemaining == null || leaseRemaining.compareTo(MAX_RETRY_AFTER) > 0
            ? MAX_RETRY_AFTER
            : leaseRemaining;
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  private static String slug(IdempotencyException e) {
    if (e instanceof IdempotencyInProgressException) {
      return "request-in-progress";
    } else if (e instanceof IdempotencyKeyMismatchException) {
      return "idempotency-key-reused";
    } else if (e instanceof IdempotencyKeyException) {
      return "idempotency-key-invalid";
    } else if (e instanceof IdempotencyStoreException) {
      return "idempotency-store-unavailable";
    } else if (e instanceof DuplicateRequestException) {
      return "already-submitted";
    } else if (e instanceof SubmitTokenException) {
      return "submit-token-invalid";
    }
    return "idempotency-error";
  }

  private static String title(IdempotencyException e, HttpStatus status) {
    if (e instanceof IdempotencyInProgressException) {
      return "Request in progress";
    } else if (e instanceof IdempotencyKeyMismatchException) {
      return "Idempotency key reused with a different request";
    } else if (e instanceof IdempotencyKeyException) {
      return "Invalid idempotency key";
    } else if (e instanceof IdempotencyStoreException) {
      return "Idempotency store unavailable";
    } else if (e instanceof DuplicateRequestException) {
      return "Already submitted";
    }
    return status.getReasonPhrase();
  }
}
