package dev.idempotent.tck;

import dev.idempotent.Idempotency;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The whole contract again, through the store's non-blocking face ({@link Idempotency#nonBlocking}:
 * the store's own when it implements {@link AsyncIdempotencyStore}, else the core's adapter): every
 * claim, complete, release, renew (batch renewal included), read and wait of the kit goes through
 * the asynchronous method and waits for its stage (at most a minute, so a stage that never
 * completes fails the check). The administrative delete, which has no non-blocking form, is the
 * store's own. Extend it as {@link IdempotencyStoreContract}:
 *
 * <pre>{@code
 * class MyStoreAsyncContractTest extends AsyncIdempotencyStoreContract {
 *   @Override
 *   protected IdempotencyStore createStore() {
 *     return MyStore.builder().connectTo(...).build();
 *   }
 * }
 * }</pre>
 */
public abstract class AsyncIdempotencyStoreContract extends IdempotencyStoreContract {
  @Override
  final IdempotencyStore exercised(IdempotencyStore created) {
    return new NonBlockingFace(created);
  }

  /** A blocking store made of a store's non-blocking face. */
  private static final class NonBlockingFace implements IdempotencyStore {
    private final IdempotencyStore store;
    private final AsyncIdempotencyStore async;

    NonBlockingFace(IdempotencyStore store) {
      this.store = store;
      this.async = Idempotency.nonBlocking(store);
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
    public boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
      return join(async.renewAllAsync(claims, lease));
    }

    @Override
    public boolean delete(RecordKey key) {
      return store.delete(key);
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      return join(async.readAsync(key));
    }

    @Override
    public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
      try {
        async.awaitChangeAsync(key, maxWait).toCompletableFuture().get(1, TimeUnit.MINUTES);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r
            ? r
            : new IllegalStateException("awaitChangeAsync failed", e.getCause());
      } catch (TimeoutException e) {
        throw new AssertionError("awaitChangeAsync did not complete within a minute", e);
      }
    }

    @Override
    public int maxKeyLength() {
      return store.maxKeyLength();
    }

    @Override
    public void close() {
      store.close();
    }

    private static <T> T join(CompletionStage<T> stage) {
      try {
        return stage.toCompletableFuture().get(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      } catch (ExecutionException e) {
        Throwable cause =
            e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
        throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
      } catch (TimeoutException e) {
        throw new AssertionError(
            "a non-blocking store operation did not complete within a minute", e);
      }
    }
  }
}
