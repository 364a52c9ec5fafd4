package dev.idempotent.jdbc.internal;

import dev.idempotent.spi.RecordKey;

/**
 * The values one statement may bind; its {@link Sql#params()} say which, in what order.
 *
 * @param micros the lease or ttl ({@code LEASE}, {@code TTL}), or the scope age ({@code AGE})
 * @param limit the purge's batch size ({@code LIMIT}, and {@code OFFSET} is one less)
 */
public record Values(
    RecordKey key,
    String owner,
    String fingerprint,
    long micros,
    byte[] outcome,
    String previousOwner,
    int limit,
    PrimaryKey after,
    PrimaryKey upTo) {

  /** A primary key as the database returned it, bound back as it is. */
  public record PrimaryKey(Object scopeId, Object key) {}

  /** Binds nothing. */
  public static final Values NONE = new Values(null, null, null, 0, null, null, 0, null, null);

  /** A key, and the owner of its claim (or {@code null}). */
  public static Values of(RecordKey key, String owner) {
    return new Values(key, owner, null, 0, null, null, 0, null, null);
  }

  /** A claim, or its renewal ({@code micros}: the lease). */
  public static Values claim(RecordKey key, String owner, String fingerprint, long leaseMicros) {
    return new Values(key, owner, fingerprint, leaseMicros, null, null, 0, null, null);
  }

  /** The completion of the claim of {@code owner}. */
  public static Values completion(RecordKey key, String owner, byte[] outcome, long ttlMicros) {
    return new Values(key, owner, null, ttlMicros, outcome, null, 0, null, null);
  }

  /** A purge of at most {@code limit} rows, {@code ageMicros} the age of an orphan scope row. */
  public static Values purge(int limit, long ageMicros) {
    return new Values(null, null, null, ageMicros, null, null, limit, null, null);
  }

  /** A chunk of the walking purge. */
  public static Values walk(int limit, PrimaryKey after, PrimaryKey upTo) {
    return new Values(null, null, null, 0, null, null, limit, after, upTo);
  }

  /** This claim as the takeover of the row whose owner was {@code previous}. */
  public Values replacing(String previous) {
    return new Values(key, owner, fingerprint, micros, outcome, previous, limit, after, upTo);
  }
}
