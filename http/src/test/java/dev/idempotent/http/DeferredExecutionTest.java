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

/** The non-blocking run of the protocol gives the answers of the blocking one. */
class DeferredExecutionTest {
  private final HttpIdempotency protocol =
      HttpIdempotency.builder()
          .idempotency(
              Idempotency.create(
                  IdempotencyConfig.builder()
                      .defaultStore(CaffeineIdempotencyStore.builder().build())
                      .build()))
          .rule(IdempotencyRule.builder("api").paths("/api/*").build())
          .rule(IdempotencyRule.submitTokens("form").paths("/form").build())
          .build();
  private final AtomicInteger runs = new AtomicInteger();

  private HttpResult post(String path, String key, String body) {
    HttpIdempotency.Admission admission =
        protocol.admit(
            "POST",
            path,
            name -> name.equals(HttpIdempotency.KEY_HEADER) ? List.of(key) : List.of(),
            null);
    return protocol
        .executeDeferred(
            admission,
            null,
            "text/plain",
            body.getBytes(StandardCharsets.UTF_8),
            () -> null,
            () ->
                CompletableFuture.completedFuture(
                    ApplicationResponse.of(
                        201,
                        List.of(Map.entry("Content-Type", "text/plain")),
                        ("run " + runs.incrementAndGet()).getBytes(StandardCharsets.UTF_8))))
        .toCompletableFuture()
        .join();
  }

  @Test
  void aRepeatIsReplayedAndAnotherBodyIs422() {
    assertThat(post("/api/o", "k", "a").kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    HttpResult again = post("/api/o", "k", "a");
    assertThat(again.kind()).isEqualTo(HttpResult.Kind.REPLAY);
    assertThat(new String(again.replayed().headers().get(0).getValue())).isEqualTo("text/plain");
    assertThat(again.replayed().status()).isEqualTo(201);
    assertThat(post("/api/o", "k", "b").problem()).isEqualTo(HttpProblem.KEY_REUSED);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aSubmitWithAForgedTokenIsRefusedWithoutRunning() {
    HttpIdempotency.Admission admission =
        protocol.admit(
            "POST",
            "/form",
            name -> name.equals("Submit-Token") ? List.of("A".repeat(32)) : List.of(),
            null);
    HttpResult r =
        protocol
            .executeDeferred(
                admission,
                null,
                "application/x-www-form-urlencoded",
                new byte[0],
                () -> "user:alice",
                () -> CompletableFuture.failedFuture(new AssertionError("must not run")))
            .toCompletableFuture()
            .join();
    assertThat(r.problem()).isEqualTo(HttpProblem.SUBMIT_TOKEN_INVALID);
  }
}
