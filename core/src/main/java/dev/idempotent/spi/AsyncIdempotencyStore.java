package dev.idempotent.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking face of an {@link IdempotencyStore}: the same operations with the same
 * semantics, answered by a {@link CompletionStage} instead of by blocking the calling thread. The
 * executor uses it for results that arrive later (Reactor {@code Mono} and {@code Flux}, Kotlin
 * {@code suspend} functions, WebFlux), where a parked thread would be an event-loop thread.
 *
 * <p>A store implements it in addition to {@link IdempotencyStore} when its backend has an
 * asynchronous client (the memory store, the Redis store on Redisson's asynchronous API). Every
 * other store is adapted by the core, which runs the blocking operations on a bounded executor of
 * the store's own and waits with a timer; so implementing this interface is an optimisation, never
 * a requirement.
 *
 * <p>Everything {@link IdempotencyStore} states holds here, operation by operation: atomicity, one
 * round trip, fencing by owner token, the store's own clock, timeouts, and what messages may carry.
 * In addition:
 *
 * <ul>
 *   <li>No method blocks the calling thread, for I/O or for a lock held across I/O; the returned
 *       stage is completed by a thread of the store's client (or of the store's own), never by the
 *       caller's thread waiting.
 *   <li>A failure is reported by completing the stage exceptionally (with the exception {@link
 *       IdempotencyStore} would have thrown), never by throwing from the method, except for an
 *       argument that is invalid whatever the backend says ({@code IllegalArgumentException}).
 *   <li>Every stage completes within the store's configured timeouts.
 * </ul>
 *
 * The contract kit in {@code idempotent-store-tck} runs every contract check through this face as
 * well as through the blocking one.
 */
public interface AsyncIdempotencyStore {

  /** {@link IdempotencyStore#claim}, without blocking. */
  CompletionStage<ClaimResult> claimAsync(
      RecordKey key, String ownerToken, String fingerprint, Duration lease);

  /** {@link IdempotencyStore#complete}, without blocking. */
  CompletionStage<Boolean> completeAsync(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl);

  /** {@link IdempotencyStore#release}, without blocking. */
  CompletionStage<Boolean> releaseAsync(RecordKey key, String ownerToken);

  /** {@link IdempotencyStore#renew}, without blocking. */
  CompletionStage<Boolean> renewAsync(RecordKey key, String ownerToken, Duration lease);

  /**
   * {@link IdempotencyStore#renewAll}, without blocking: the renewer's call when the store has this
   * face. The default calls {@link #renewAsync} for every claim at once and completes when all have
   * answered, exceptionally when one of them failed (the renewer then retries them all). Stores
   * override it with one round trip per batch.
   */
  default CompletionStage<boolean[]> renewAllAsync(List<HeldClaim> claims, Duration lease) {
    boolean[] renewed = new boolean[claims.size()];
    CompletableFuture<?>[] each = new CompletableFuture<?>[renewed.length];
    for (int i = 0; i < renewed.length; i++) {
      int at = i;
      HeldClaim c = claims.get(i);
      each[i] =
          renewAsync(c.key(), c.ownerToken(), lease)
              .toCompletableFuture()
              .thenAccept(r -> renewed[at] = r);
    }
    return CompletableFuture.allOf(each).thenApply(done -> renewed);
  }

  /** {@link IdempotencyStore#read}, without blocking. */
  CompletionStage<Optional<IdempotencyRecord>> readAsync(RecordKey key);

  /**
   * {@link IdempotencyStore#awaitChange}, without parking a thread: the stage completes normally
   * when the record of {@code key} may have changed (completed, released, deleted, expired) or when
   * {@code maxWait} has passed, whichever comes first; an early completion is allowed. It completes
   * exceptionally only when the store cannot watch the key (a failed subscription). A store with
   * notifications completes it from the notification; any other from a timer.
   */
  CompletionStage<Void> awaitChangeAsync(RecordKey key, Duration maxWait);
}
