package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Hardening items 1 and 2: whatever paths, methods, callers and keys clients send, the store sees
 * one scope per rule; what grows is records, which expire.
 */
class BoundedScopesTest {
  /** Notes every scope that reaches the store. */
  static final class ScopeRecordingStore implements IdempotencyStore {
    final IdempotencyStore delegate = CaffeineIdempotencyStore.builder().build();
    final Set<String> scopes = ConcurrentHashMap.newKeySet();

    @Override
    public ClaimResult claim(RecordKey key, String owner, String fingerprint, Duration lease) {
      scopes.add(key.scope());
      return delegate.claim(key, owner, fingerprint, lease);
    }

    @Override
    public boolean complete(RecordKey key, String owner, byte[] outcome, Duration ttl) {
      scopes.add(key.scope());
      return delegate.complete(key, owner, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String owner) {
      return delegate.release(key, owner);
    }

    @Override
    public boolean renew(RecordKey key, String owner, Duration lease) {
      return delegate.renew(key, owner, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      return delegate.delete(key);
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return delegate.read(key);
    }
  }

  @Test
  void tenThousandDistinctPathsAndCallersMakeOneScope() {
    ScopeRecordingStore store = new ScopeRecordingStore();
    HttpIdempotency protocol =
        HttpIdempotency.builder()
            .idempotency(
                Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build()))
            .rule(IdempotencyRule.builder("api").paths("/api/*").build())
            .build();
    for (int n = 0; n < 10_000; n++) {
      int i = n;
      String path = "/api/c/" + i + (i % 3 == 0 ? " @" + i : "");
      HttpIdempotency.Admission admission =
          protocol.admit(
              i % 2 == 0 ? "POST" : "PATCH",
              path,
              name -> name.equals(HttpIdempotency.KEY_HEADER) ? List.of("k" + i) : List.of(),
              i % 5 == 0 ? null : "caller-" + i);
      HttpResult result =
          protocol
              .execute(
                  admission,
                  null,
                  "text/plain",
                  new byte[0],
                  () -> null,
                  () ->
                      CompletableFuture.completedFuture(
                          ApplicationResponse.of(
                              404, List.of(Map.entry("Content-Type", "text/plain")), new byte[0])))
              .toCompletableFuture()
              .join();
      assertThat(result.kind()).isEqualTo(HttpResult.Kind.SEND_CAPTURED);
    }
    assertThat(store.scopes).containsExactly("api");
  }
}
