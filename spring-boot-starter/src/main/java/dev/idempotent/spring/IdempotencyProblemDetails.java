package dev.idempotent.spring;

import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.http.HttpProblem;
import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers every {@link IdempotencyException} that escapes a Spring MVC handler with an RFC 9457
 * problem detail: 409 with {@code Retry-After} for a call still in progress, 409 {@code
 * request-blocked} without {@code Retry-After} for a blocked key (its outcome is unknown; an
 * operator checks and deletes the record), 422 for a key reused with another payload, 400 when the
 * key could not be derived, 503 with {@code Retry-After} when the store fails. Titles and details
 * are the library's own fixed texts ({@link HttpProblem}), the same the idempotency filters answer
 * with: an exception's message (a key resolver's or a getter's text, a method signature, an
 * expression) never reaches the client; it is logged, without the key. It has the lowest
 * precedence, so the application's own {@code @ExceptionHandler} for these exceptions wins; {@code
 * idempotent.problem-details.enabled=false} turns it off.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class IdempotencyProblemDetails {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.web");

  /** The prefix of every problem {@code type}. */
  public static final String TYPE_BASE = HttpProblem.DEFAULT_TYPE_BASE;

  /** The most a client is asked to wait before retrying a call in progress. */
  public static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(1);

  /** The problem detail for {@code e}. */
  @ExceptionHandler(IdempotencyException.class)
  public ResponseEntity<ProblemDetail> handle(IdempotencyException e) {
    HttpProblem p = HttpProblem.of(e);
    if (p.status() >= 500) {
      LOG.warn("an idempotent call was answered {} {}: {}", p.status(), p.slug(), e.getMessage());
    } else {
      LOG.debug("an idempotent call was answered {} {}: {}", p.status(), p.slug(), e.getMessage());
    }
    ProblemDetail problem = ProblemDetail.forStatus(p.status());
    problem.setType(URI.create(TYPE_BASE + p.slug()));
    problem.setTitle(p.title());
    problem.setDetail(p.detail());
    ResponseEntity.BodyBuilder response =
        ResponseEntity.status(p.status()).header(HttpHeaders.CACHE_CONTROL, "no-store");
    if (e instanceof IdempotencyInProgressException inProgress) {
      response.header(
          HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(inProgress.leaseRemaining())));
    } else if (p == HttpProblem.STORE_UNAVAILABLE) {
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
}
