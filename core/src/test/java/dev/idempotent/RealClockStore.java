package dev.idempotent;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small in-memory store on the real clock: a lease that is not renewed really ends, and another
 * caller can then take the key over. {@link #beforeRenew} runs before every renewal, outside the
 * store's lock, to make renewals slow, hang or throw.
 */
public final class RealClockStore implements IdempotencyStore {
  /** What a renewal does first. */
  @FunctionalInterface
  public interface RenewHook {
    void run() throws InterruptedException;
  }

  private record Entry(
      RecordStatus status, String owner, String fingerprint, byte[] outcome, long expiresAt) {}

  private final Map<RecordKey, Entry> entries = new HashMap<>();
  public final AtomicInteger renewals = new AtomicInteger();
  public final AtomicInteger claims = new AtomicInteger();
  public volatile RenewHook beforeRenew = () -> {};
  public volatile boolean closed;

  private Entry live(RecordKey key) {
    Entry e = entries.get(key);
    return e != null && e.expiresAt - System.nanoTime() > 0 ? e : null;
  }

  @Override
  public synchronized ClaimResult claim(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    claims.incrementAndGet();
    Entry e = entries.get(key);
    Entry l = live(key);
    if (l != null) {
      return ClaimResult.existing(toRecord(key, l));
    }
    entries.put(
        key,
        new Entry(
            RecordStatus.IN_PROGRESS,
            ownerToken,
            fingerprint,
            null,
            System.nanoTime() + lease.toNanos()));
    return e != null && e.status == RecordStatus.IN_PROGRESS
        ? ClaimResult.tookOver()
        : ClaimResult.acquired();
  }

  private IdempotencyRecord toRecord(RecordKey key, Entry e) {
    Duration left = Duration.ofNanos(Math.max(0, e.expiresAt - System.nanoTime()));
    return e.status == RecordStatus.COMPLETED
        ? IdempotencyRecord.completed(key, e.owner, e.fingerprint, e.outcome, left)
        : IdempotencyRecord.inProgress(key, e.owner, e.fingerprint, left);
  }

  private boolean owned(RecordKey key, String owner) {
    Entry e = live(key);
    return e != null && e.status == RecordStatus.IN_PROGRESS && e.owner.equals(owner);
  }

  @Override
  public synchronized boolean complete(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    if (!owned(key, ownerToken)) {
      return false;
    }
    Entry e = entries.get(key);
    entries.put(
        key,
        new Entry(
            RecordStatus.COMPLETED,
            ownerToken,
            e.fingerprint,
            outcome.clone(),
            System.nanoTime() + ttl.toNanos()));
    return true;
  }

  @Override
  public synchronized boolean release(RecordKey key, String ownerToken) {
    if (!owned(key, ownerToken)) {
      return false;
    }
    entries.remove(key);
    return true;
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    renewals.incrementAndGet();
    try {
      beforeRenew.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    synchronized (this) {
      if (!owned(key, ownerToken)) {
        return false;
      }
      Entry e = entries.get(key);
      entries.put(
          key,
          new Entry(e.status, e.owner, e.fingerprint, null, System.nanoTime() + lease.toNanos()));
      return true;
    }
  }

  @Override
  public boolean delete(RecordKey key) {
    throw new UnsupportedOperationException("not used by this test");
  }

  @Override
  public synchronized Optional<IdempotencyRecord> read(RecordKey key) {
    Entry e = live(key);
    return e == null ? Optional.empty() : Optional.of(toRecord(key, e));
  }

  @Override
  public void close() {
    closed = true;
  }
}
