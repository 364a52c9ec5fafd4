package dev.idempotent.memory;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One record of the memory store: a claim in progress ({@code outcome == null}) or a completed
 * outcome. Immutable but for its links in the {@link CompletionOrder}; every change of a key
 * replaces its record.
 */
final class MemoryRecord {
  /**
   * How long a claim whose lease ended is kept, invisible, so that the next claim can report a
   * takeover rather than a fresh acquisition. After that it is dropped and a claim simply acquires
   * the key.
   */
  static final long TAKEOVER_WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

  /**
   * How long one replay answer is reused for further replays of the same record (its expiresIn ages
   * as much).
   */
  static final long REPLAY_REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  final RecordKey key;

  /** The holder's owner token while in progress; {@code null} once completed. */
  final String owner;

  final String fingerprint;
  final byte[] outcome;

  /** Lease end while in progress, ttl end once completed, on the store's clock. */
  final long deadline;

  /**
   * The last answer of {@link #replay}, built at {@code deadline - expiresIn}; written without
   * synchronization (immutable, safely published through final fields).
   */
  private ClaimResult replay;

  /**
   * Neighbours in the completion order, guarded by it; both null while not in it (the oldest has
   * {@code older == null}).
   */
  MemoryRecord older;

  MemoryRecord newer;

  /** Whether the record is in the completion order; guarded by it. */
  boolean ordered;

  private MemoryRecord(
      RecordKey key, String owner, String fingerprint, byte[] outcome, long deadline) {
    this.key = key;
    this.owner = owner;
    this.fingerprint = fingerprint;
    this.outcome = outcome;
    this.deadline = deadline;
  }

  /** A claim of {@code owner} whose lease ends at {@code deadline}. */
  static MemoryRecord claim(RecordKey key, String owner, String fingerprint, long deadline) {
    return new MemoryRecord(key, owner, fingerprint, null, deadline);
  }

  /**
   * The completed record of this claim, expiring at {@code deadline}. It keeps no owner: nothing
   * asks for it once the claim is over.
   */
  MemoryRecord completedWith(byte[] outcome, long deadline) {
    return new MemoryRecord(key, null, fingerprint, outcome, deadline);
  }

  /** This claim with a lease that ends at {@code deadline}. */
  MemoryRecord renewedUntil(long deadline) {
    return new MemoryRecord(key, owner, fingerprint, null, deadline);
  }

  boolean isCompleted() {
    return outcome != null;
  }

  boolean isLiveAt(long now) {
    return deadline - now > 0;
  }

  boolean isHeldBy(String ownerToken, long now) {
    return outcome == null && isLiveAt(now) && owner.equals(ownerToken);
  }

  /**
   * How long the cache keeps the record: a claim a little past its lease end, so that a takeover is
   * seen.
   */
  long retainUntil() {
    return outcome != null ? deadline : deadline + TAKEOVER_WINDOW_NANOS;
  }

  /**
   * The answer to a claim on this completed record. Replays of a hot key within {@link
   * #REPLAY_REUSE_NANOS} share one answer (immutable), so the replay path allocates nothing; its
   * expiresIn is then up to that much older. Racy by design: a lost update only costs an
   * allocation.
   */
  ClaimResult replay(RecordKey asked, long now) {
    ClaimResult cached = replay;
    if (cached != null) {
      long builtAt = deadline - cached.existing().expiresIn().toNanos();
      if (now - builtAt < REPLAY_REUSE_NANOS && now - builtAt >= 0) {
        return cached;
      }
    }
    ClaimResult fresh = ClaimResult.existing(toRecord(asked, now, false));
    replay = fresh;
    return fresh;
  }

  /**
   * The record as the SPI returns it, with the time left from {@code now}. Replays get the stored
   * array ({@link IdempotencyRecord#outcome()} says not to modify it); reads get a copy.
   */
  IdempotencyRecord toRecord(RecordKey asked, long now, boolean copyOutcome) {
    Duration left = Duration.ofNanos(Math.max(deadline - now, 0));
    if (outcome == null) {
      return IdempotencyRecord.inProgress(asked, owner, fingerprint, left);
    }
    return IdempotencyRecord.completed(
        asked, owner, fingerprint, copyOutcome ? outcome.clone() : outcome, left);
  }
}
