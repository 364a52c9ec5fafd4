package dev.idempotent.spi;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A stored record as a store returns it: who holds it, what it recorded, and how long it has left.
 *
 * <p>{@link #expiresIn()} is measured by the store's own clock at the moment of the read (Redis key
 * TTL, the database's {@code now()}, the in-process ticker), so no two hosts ever compare their
 * clocks.
 */
public final class IdempotencyRecord {
  private final RecordKey key;
  private final RecordStatus status;
  private final String ownerToken;
  private final String fingerprint;
  private final byte[] outcome;
  private final Duration expiresIn;

  private IdempotencyRecord(
      RecordKey key,
      RecordStatus status,
      String ownerToken,
      String fingerprint,
      byte[] outcome,
      Duration expiresIn) {
    this.key = Objects.requireNonNull(key, "key");
    this.status = Objects.requireNonNull(status, "status");
    this.ownerToken =
        status == RecordStatus.IN_PROGRESS
            ? Objects.requireNonNull(ownerToken, "ownerToken")
            : ownerToken;
    this.fingerprint = fingerprint;
    this.outcome = outcome;
    this.expiresIn = expiresIn == null || expiresIn.isNegative() ? Duration.ZERO : expiresIn;
    if (status == RecordStatus.COMPLETED && outcome == null) {
      throw new IllegalArgumentException("a COMPLETED record needs its outcome bytes");
    }
  }

  /** A claim held by {@code ownerToken}, whose lease ends in {@code leaseRemaining}. */
  public static IdempotencyRecord inProgress(
      RecordKey key, String ownerToken, String fingerprint, Duration leaseRemaining) {
    return new IdempotencyRecord(
        key, RecordStatus.IN_PROGRESS, ownerToken, fingerprint, null, leaseRemaining);
  }

  /**
   * A recorded outcome, kept for another {@code ttlRemaining}. The array is not copied. {@code
   * ownerToken} may be {@code null} when the store does not keep the token of a completed record
   * (the Redis store keeps only a short digest of it, to answer a resent complete).
   */
  public static IdempotencyRecord completed(
      RecordKey key, String ownerToken, String fingerprint, byte[] outcome, Duration ttlRemaining) {
    return new IdempotencyRecord(
        key,
        RecordStatus.COMPLETED,
        ownerToken,
        fingerprint,
        Objects.requireNonNull(outcome, "outcome"),
        ttlRemaining);
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

  /**
   * The owner token of the call that claimed (and, if completed, completed) the record; never
   * {@code null} while in progress, and {@code null} for a completed record of a store that does
   * not keep it.
   */
  public String ownerToken() {
    return ownerToken;
  }

  /** The payload fingerprint given at claim time, or {@code null} when the call had none. */
  public String fingerprint() {
    return fingerprint;
  }

  /**
   * The encoded outcome of a completed record (not a copy: do not modify), {@code null} while in
   * progress.
   */
  public byte[] outcome() {
    return outcome;
  }

  /** Time left: lease remaining while in progress, ttl remaining once completed; never negative. */
  public Duration expiresIn() {
    return expiresIn;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencyRecord r
        && key.equals(r.key)
        && status == r.status
        && Objects.equals(ownerToken, r.ownerToken)
        && Objects.equals(fingerprint, r.fingerprint)
        && Arrays.equals(outcome, r.outcome);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, status, ownerToken);
  }

  @Override
  public String toString() {
    return "IdempotencyRecord{"
        + key
        + ", "
        + status
        + ", owner="
        + ownerToken
        + ", expiresIn="
        + expiresIn
        + (outcome == null ? "" : ", outcome=" + outcome.length + " bytes")
        + "}";
  }
}
