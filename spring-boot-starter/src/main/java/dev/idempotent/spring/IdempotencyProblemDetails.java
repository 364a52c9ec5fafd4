package dev.idempotent.spring;

import dev.idempotent.IdempotencyException;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.HttpProblem;
import dev.idempotent.http.HttpResult;
import java.net.URI;
import java.util.List;
import java.util.Map;
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

  /**
   * The problem detail for {@code e}, with the headers the HTTP protocol decides for it ({@link
   * HttpIdempotency#answer}, {@link HttpResult#headers}): {@code Cache-Control}, {@code
   * Retry-After} and the problem's media type. The body is Spring's {@link ProblemDetail}, written
   * by Spring's converter, which sets its length.
   */
  @ExceptionHandler(IdempotencyException.class)
  public ResponseEntity<ProblemDetail> handle(IdempotencyException e) {
    HttpResult answer = HttpIdempotency.answer(e);
    HttpProblem p = answer.problem();
    if (p.status() >= 500) {
      LOG.warn("an idempotent call was answered {} {}: {}", p.status(), p.slug(), e.getMessage());
    } else {
      LOG.debug("an idempotent call was answered {} {}: {}", p.status(), p.slug(), e.getMessage());
    }
    ProblemDetail problem = ProblemDetail.forStatus(p.status());
    problem.setType(URI.create(TYPE_BASE + p.slug()));
    problem.setTitle(p.title());
    problem.setDetail(p.detail());
    // the builder, not HttpHeaders itself, whose type differs between Spring 6 and 7
    ResponseEntity.BodyBuilder response = ResponseEntity.status(p.status());
    for (Map.Entry<String, String> h : answer.headers(List.of(), TYPE_BASE)) {
      if (!h.getKey().equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH)) {
        response.header(h.getKey(), h.getValue());
      }
    }
    return response.body(problem);
  }
}
