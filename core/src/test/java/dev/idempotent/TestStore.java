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
import java.util.concurrent.atomic.AtomicLong;

/** A small synchronized store on a fake clock, with switches to make operations fail. */
public final class TestStore implements IdempotencyStore, TimeSource {
  private record Entry(
      RecordStatus status, String owner, String fingerprint, byte[] outcome, long expiresAt) {}

  private final Map<RecordKey, Entry> entries = new HashMap<>();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  public volatile RuntimeException failClaim;
  public volatile RuntimeException failComplete;
  public volatile RuntimeException failDelete;
  public volatile Error failRelease;
  public volatile int maxKeyLength = Integer.MAX_VALUE;
  public final AtomicInteger claims = new AtomicInteger();
  public final AtomicInteger renewals = new AtomicInteger();
  public final AtomicInteger releases = new AtomicInteger();
  public final AtomicInteger deletes = new AtomicInteger();

  @Override
  public long nanoTime() {
    return now.get();
  }

  public void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  private Entry live(RecordKey key) {
    Entry e = entries.get(key);
    return e != null && e.expiresAt > now.get() ? e : null;
  }

  @Override
  public synchronized ClaimResult claim(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    claims.incrementAndGet();
    if (failClaim != null) {
      throw failClaim;
    }
    Entry e = entries.get(key);
    Entry l = live(key);
    if (l != null) {
      return ClaimResult.existing(toRecord(key, l));
    }
    entries.put(
        key,
        new Entry(
            RecordStatus.IN_PROGRESS, ownerToken, fingerprint, null, now.get() + lease.toNanos()));
    return e != null && e.status == RecordStatus.IN_PROGRESS
        ? ClaimResult.tookOver()
        : ClaimResult.acquired();
  }

  private IdempotencyRecord toRecord(RecordKey key, Entry e) {
    Duration left = Duration.ofNanos(e.expiresAt - now.get());
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
    if (failComplete != null) {
      throw failComplete;
    }
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
            now.get() + ttl.toNanos()));
    notifyAll();
    return true;
  }

  @Override
  public synchronized boolean release(RecordKey key, String ownerToken) {
    releases.incrementAndGet();
    if (failRelease != null) {
      throw failRelease;
    }
    if (!owned(key, ownerToken)) {
      return false;
    }
    entries.remove(key);
    notifyAll();
    return true;
  }

  @Override
  public synchronized boolean renew(RecordKey key, String ownerToken, Duration lease) {
    renewals.incrementAndGet();
    if (!owned(key, ownerToken)) {
      return false;
    }
    Entry e = entries.get(key);
    entries.put(
        key, new Entry(e.status, e.owner, e.fingerprint, null, now.get() + lease.toNanos()));
    return true;
  }

  @Override
  public synchronized boolean delete(RecordKey key) {
    deletes.incrementAndGet();
    if (failDelete != null) {
      throw failDelete;
    }
    if (live(key) == null) {
      return false;
    }
    entries.remove(key);
    notifyAll();
    return true;
  }

  @Override
  public synchronized Optional<IdempotencyRecord> read(RecordKey key) {
    Entry e = live(key);
    return e == null ? Optional.empty() : Optional.of(toRecord(key, e));
  }

  @Override
  public synchronized void awaitChange(RecordKey key, Duration maxWait)
      throws InterruptedException {
    long ms = Math.max(1, maxWait.toMillis());
    wait(ms);
  }

  @Override
  public int maxKeyLength() {
    return maxKeyLength;
  }

  /** Replaces the owner of a live claim, as a takeover after lease end would. */
  public synchronized void stealClaim(RecordKey key, String newOwner) {
    Entry e = entries.get(key);
    entries.put(
        key, new Entry(RecordStatus.IN_PROGRESS, newOwner, e.fingerprint, null, e.expiresAt));
  }

  public synchronized int size() {
    return entries.size();
  }

  public synchronized RecordKey onlyKey() {
    return entries.keySet().iterator().next();
  }
}
