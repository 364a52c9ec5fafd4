package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A rule's sanitiser decides what of a response is recorded: the first client gets what the
 * application wrote, every repeat what was recorded; it can neither change the status nor put back
 * a header that is never replayed.
 */
class ResponseSanitizerTest {
  private final AtomicInteger runs = new AtomicInteger();

  private HttpIdempotency protocol(ResponseSanitizer sanitizer) {
    return HttpIdempotency.builder()
        .idempotency(
            Idempotency.create(
                IdempotencyConfig.builder()
                    .defaultStore(CaffeineIdempotencyStore.builder().build())
                    .build()))
        .rule(
            IdempotencyRule.builder("api")
                .paths("/api/*")
                .replayedHeaders("Content-Type", "X-Request-Id")
                .sanitizer(sanitizer)
                .build())
        .build();
  }

  private HttpResult post(HttpIdempotency protocol, String key) {
    HttpIdempotency.Admission admission =
        protocol.admit(
            "POST",
            "/api/keys",
            name -> name.equals(HttpIdempotency.KEY_HEADER) ? List.of(key) : List.of(),
            null);
    return protocol
        .executeDeferred(
            admission,
            null,
            "text/plain",
            "create".getBytes(StandardCharsets.UTF_8),
            () -> null,
            () ->
                CompletableFuture.completedFuture(
                    ApplicationResponse.of(
                        201,
                        List.of(
                            Map.entry("Content-Type", "text/plain"),
                            Map.entry("X-Request-Id", "req-" + runs.incrementAndGet()),
                            Map.entry("Set-Cookie", "session=abc")),
                        ("secret=s3cr3t-" + runs.get()).getBytes(StandardCharsets.UTF_8))))
        .toCompletableFuture()
        .join();
  }

  private static String body(RecordedResponse r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  @Test
  void theFirstClientGetsTheSecretAndEveryRepeatTheSanitisedRecord() {
    HttpIdempotency protocol =
        protocol(
            (method, path, response) ->
                new RecordedResponse(
                    response.status(),
                    List.of(
                        Map.entry("Content-Type", "text/plain"),
                        Map.entry("Set-Cookie", "put=back")),
                    "secret=(shown once)".getBytes(StandardCharsets.UTF_8)));

    HttpResult first = post(protocol, "k");
    assertThat(first.kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);

    HttpResult again = post(protocol, "k");
    assertThat(again.kind()).isEqualTo(HttpResult.Kind.REPLAY);
    assertThat(again.replayed().status()).isEqualTo(201);
    assertThat(body(again.replayed())).isEqualTo("secret=(shown once)");
    assertThat(again.replayed().headers()).containsExactly(Map.entry("Content-Type", "text/plain"));
    assertThat(runs).hasValue(1);
  }

  /** Replaces the secret in a body such as {@code secret=...} by a placeholder. */
  private static byte[] redactSecret(byte[] body) {
    return new String(body, StandardCharsets.UTF_8)
        .replaceAll("secret=[^&]*", "secret=(shown once)")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theDocumentedSanitiserRedactsTheSecretOfEveryRepeat() {
    // docs/web.md: sanitizer (begin)
    IdempotencyRule rule =
        IdempotencyRule.builder("api-keys")
            .paths("/api-keys")
            .sanitizer(
                (method, path, response) ->
                    new RecordedResponse(
                        response.status(), response.headers(), redactSecret(response.body())))
            .build();
    // docs/web.md: sanitizer (end)
    RecordedResponse recorded =
        rule.sanitizer()
            .sanitize(
                "POST",
                "/api-keys",
                new RecordedResponse(
                    201, List.of(), "secret=s3cr3t".getBytes(StandardCharsets.UTF_8)));
    assertThat(body(recorded)).isEqualTo("secret=(shown once)");
  }

  @Test
  void theSanitiserSeesOnlyTheRuleSHeadersAndNoCookie() {
    List<List<Map.Entry<String, String>>> seen = new java.util.ArrayList<>();
    HttpIdempotency protocol =
        protocol(
            (method, path, response) -> {
              seen.add(response.headers());
              return response;
            });
    post(protocol, "k");
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0))
        .containsExactly(
            Map.entry("Content-Type", "text/plain"), Map.entry("X-Request-Id", "req-1"));
    assertThat(body(post(protocol, "k").replayed())).isEqualTo("secret=s3cr3t-1");
  }

  @Test
  void nullRecordsNothingSoARetryRunsAgain() {
    HttpIdempotency protocol = protocol((method, path, response) -> null);
    assertThat(post(protocol, "k").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    assertThat(post(protocol, "k").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    assertThat(runs).hasValue(2);
  }

  @Test
  void aChangedStatusOrAThrowingSanitiserRecordsNothing() {
    HttpIdempotency changesStatus =
        protocol(
            (method, path, response) ->
                new RecordedResponse(200, response.headers(), response.body()));
    assertThat(post(changesStatus, "k").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    assertThat(post(changesStatus, "k").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);

    HttpIdempotency throwing =
        protocol(
            (method, path, response) -> {
              throw new IllegalStateException("boom");
            });
    assertThat(post(throwing, "k").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    assertThat(post(throwing, "k").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    assertThat(runs).hasValue(4);
  }
}
