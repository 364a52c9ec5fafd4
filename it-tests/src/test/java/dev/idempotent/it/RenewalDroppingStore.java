package dev.idempotent.it;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Optional;

/**
 * A store whose renewals never reach the backend (they report success): its holders' leases end on
 * time however long they run, as for a holder paused by a long GC or a frozen VM.
 */
final class RenewalDroppingStore implements IdempotencyStore {
  private final IdempotencyStore delegate;

  RenewalDroppingStore(IdempotencyStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    return delegate.claim(key, ownerToken, fingerprint, lease);
  }

  @Override
  public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    return delegate.complete(key, ownerToken, outcome, ttl);
  }

  @Override
  public boolean release(RecordKey key, String ownerToken) {
    return delegate.release(key, ownerToken);
  }

  @Override
  public boolean renew(RecordKey key, String ownerToken, Duration lease) {
    return true;
  }

  @Override
  public boolean delete(RecordKey key) {
    return delegate.delete(key);
  }

  @Override
  public Optional<IdempotencyRecord> read(RecordKey key) {
    return delegate.read(key);
  }

  @Override
  public int maxKeyLength() {
    return delegate.maxKeyLength();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
