package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code ReplayHook} is written for the results of the application's methods. The protocol's own
 * recorded values (the encoded responses) never reach it: a hook that expects a method's result
 * type would otherwise turn every replayed response into a failure.
 */
class ReplayHookNotGivenResponsesTest {
  private final List<Object> hooked = new CopyOnWriteArrayList<>();
  private final HttpIdempotency protocol =
      HttpIdempotency.builder()
          .idempotency(
              Idempotency.create(
                  IdempotencyConfig.builder()
                      .defaultStore(CaffeineIdempotencyStore.builder().build())
                      .replayHook(
                          (scope, value) -> {
                            hooked.add(value);
                            return "replayed " + (String) value; // written for String results
                          })
                      .build()))
          .rule(IdempotencyRule.builder("api").paths("/api/*").build())
          .rule(IdempotencyRule.submitTokens("form").paths("/form").build())
          .build();
  private final AtomicInteger runs = new AtomicInteger();

  private HttpResult post(boolean deferred, String path, String key, String token) {
    HttpIdempotency.Admission admission =
        protocol.admit(
            "POST",
            path,
            name ->
                name.equals(HttpIdempotency.KEY_HEADER) && key != null
                    ? List.of(key)
                    : name.equals("Submit-Token") && token != null ? List.of(token) : List.of(),
            null);
    byte[] body = "order".getBytes(StandardCharsets.UTF_8);
    java.util.function.Supplier<CompletableFuture<ApplicationResponse>> app =
        () ->
            CompletableFuture.completedFuture(
                ApplicationResponse.of(
                    201,
                    List.of(Map.entry("Content-Type", "text/plain")),
                    ("run " + runs.incrementAndGet()).getBytes(StandardCharsets.UTF_8)));
    return (deferred
            ? protocol.executeDeferred(admission, null, "text/plain", body, () -> "alice", app)
            : protocol.execute(admission, null, "text/plain", body, () -> "alice", app))
        .toCompletableFuture()
        .join();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aKeyedRepeatIsReplayedWithoutTheHook(boolean deferred) {
    assertThat(post(deferred, "/api/o", "k", null).kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    HttpResult again = post(deferred, "/api/o", "k", null);
    assertThat(again.kind()).isEqualTo(HttpResult.Kind.REPLAY);
    assertThat(again.replayed().status()).isEqualTo(201);
    assertThat(new String(again.replayed().body(), StandardCharsets.UTF_8)).isEqualTo("run 1");
    assertThat(hooked).isEmpty();
    assertThat(runs).hasValue(1);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aSubmitTokenRepeatIsReplayedWithoutTheHook(boolean deferred) {
    String token = protocol.issueSubmitToken("/form", "alice");
    assertThat(post(deferred, "/form", null, token).kind())
        .isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    HttpResult again = post(deferred, "/form", null, token);
    assertThat(again.kind()).isEqualTo(HttpResult.Kind.REPLAY);
    assertThat(again.replayed().status()).isEqualTo(201);
    assertThat(hooked).isEmpty();
    assertThat(runs).hasValue(1);
  }
}
