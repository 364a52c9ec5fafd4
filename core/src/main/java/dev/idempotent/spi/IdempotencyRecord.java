package dev.idempotent.spi;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A stored record as a store returns it: who holds it, what it recorded, and how long it has left.
 *
 * <p>{@link #expiresIn()} is measured by the store's own clock at the moment of the read (Redis key TTL,
 * the database's {@code now()}, the in-process ticker), so no two hosts ever compare their clocks.
 */
public final class IdempotencyRecord {
  private final RecordKey key;
  private final RecordStatus status;
  private final String ownerToken;
  private final String fingerprint;
  private final byte[] outcome;
  private final Duration expiresIn;

  private IdempotencyRecord(RecordKey key, RecordStatus status, String ownerToken, String fingerprint,
      byte[] outcome, Duration expiresIn) {
    this.key = Objects.requireNonNull(key, "key");
    this.status = Objects.requireNonNull(status, "status");
    this.ownerToken = Objects.requireNonNull(ownerToken, "ownerToken");
    this.fingerprint = fingerprint;
    this.outcome = outcome;
    this.expiresIn = expiresIn == null || expiresIn.isNegative() ? Duration.ZERO : expiresIn;
    if (status == RecordStatus.COMPLETED && outcome == null) {
      throw new IllegalArgumentException("a COMPLETED record needs its outcome bytes");
    }
  }

  /** A claim held by {@code ownerToken}, whose lease ends in {@code leaseRemaining}. */
  public static IdempotencyRecord inProgress(RecordKey key, String ownerToken, String fingerprint,
      Duration leaseRemaining) {
    return new IdempotencyRecord(key, RecordStatus.IN_PROGRESS, ownerToken, fingerprint, null, leaseRemaining);
  }

  /** A recorded outcome, kept for another {@code ttlRemaining}. The array is not copied. */
  public static IdempotencyRecord completed(RecordKey key, String ownerToken, String fingerprint, byte[] outcome,
      Duration ttlRemaining) {
    return new IdempotencyRecord(key, RecordStatus.COMPLETED, ownerToken, fingerprint,
        Objects.requireNonNull(outcome, "outcome"), ttlRemaining);
  }

  public RecordKey key() {
    return key;
  }

  public RecordStatus status() {
    return status;
  }

  public boolean isCompleted() {
    return status == RecordStatus.COMPLETED;
  }

  /** The owner token of the call that claimed (and, if completed, completed) the record. */
  public String ownerToken() {
    return ownerToken;
  }

  /** The payload fingerprint given at claim time, or {@code null} when the call had none. */
  public String fingerprint() {
    return fingerprint;
  }

  /** The encoded outcome of a completed record (not a copy: do not modify), {@code null} while in progress. */
  public byte[] outcome() {
    return outcome;
  }

  /** Time left: lease remaining while in progress, ttl remaining once completed; never negative. */
  public Duration expiresIn() {
    return expiresIn;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencyRecord r && key.equals(r.key) && status == r.status
        && ownerToken.equals(r.ownerToken) && Objects.equals(fingerprint, r.fingerprint)
        && Arrays.equals(outcome, r.outcome);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, status, ownerToken);
  }

  @Override
  public String toString() {
    return "IdempotencyRecord{" + key + ", " + status + ", owner=" + ownerToken + ", expiresIn=" + expiresIn
        + (outcome == null ? "" : ", outcome=" + outcome.length + " bytes") + "}";
  }
}
