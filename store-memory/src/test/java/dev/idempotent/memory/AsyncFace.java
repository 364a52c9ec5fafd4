package dev.idempotent.memory;

import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * A blocking store made of a store's asynchronous face alone: every call goes through the {@link
 * AsyncIdempotencyStore} method and waits for its stage, so the contract kit checks that face.
 */
final class AsyncFace implements IdempotencyStore {
  private final AsyncIdempotencyStore async;
  private final IdempotencyStore closing;

  <S extends AsyncIdempotencyStore & IdempotencyStore> AsyncFace(S store) {
    this.async = store;
    this.closing = store;
  }

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    return join(async.claimAsync(key, ownerToken, fingerprint, lease));
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return join(async.completeAsync(key, ownerToken, outcome, ttl));
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    return join(async.releaseAsync(key, ownerToken));
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    return join(async.renewAsync(key, ownerToken, lease));
  }

  @Override
  public boolean delete(RecordKey key) {
    return closing.delete(key);
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    return join(async.readAsync(key));
  }

  @Override
  public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    try {
      async.awaitChangeAsync(key, maxWait).toCompletableFuture().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("awaitChangeAsync failed", e.getCause());
    }
  }

  @Override
  public void close() {
    closing.close();
  }

  private static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }
}
