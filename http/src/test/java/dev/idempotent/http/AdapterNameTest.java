package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Observations name the adapter of a request's call: {@code http} for the servlet filter's run
 * ({@link HttpIdempotency#execute}), {@code webflux} for the non-blocking one ({@link
 * HttpIdempotency#executeDeferred}).
 */
class AdapterNameTest {
  private final List<String> started = new CopyOnWriteArrayList<>();
  private final HttpIdempotency protocol =
      HttpIdempotency.builder()
          .idempotency(
              Idempotency.create(
                  IdempotencyConfig.builder()
                      .defaultStore(CaffeineIdempotencyStore.builder().build())
                      .observer(
                          (scope, store, adapter, digest) -> {
                            started.add(scope + " " + adapter);
                            return IdempotencyObserver.Call.NONE;
                          })
                      .build()))
          .rule(IdempotencyRule.builder("api").paths("/api/*").build())
          .build();

  private void post(String key, boolean deferred) {
    HttpIdempotency.Admission admission =
        protocol.admit(
            "POST",
            "/api/o",
            name -> name.equals(HttpIdempotency.KEY_HEADER) ? List.of(key) : List.of(),
            null);
    byte[] body = "b".getBytes(StandardCharsets.UTF_8);
    java.util.function.Supplier<CompletableFuture<ApplicationResponse>> app =
        () ->
            CompletableFuture.completedFuture(
                ApplicationResponse.of(
                    201, List.of(Map.entry("Content-Type", "text/plain")), body));
    (deferred
            ? protocol.executeDeferred(admission, null, "text/plain", body, () -> null, app)
            : protocol.execute(admission, null, "text/plain", body, () -> null, app))
        .toCompletableFuture()
        .join();
  }

  @Test
  void theServletRunIsHttpAndTheNonBlockingRunIsWebflux() {
    post("k1", false);
    post("k2", true);
    assertThat(started).containsExactly("api http", "api webflux");
  }
}
