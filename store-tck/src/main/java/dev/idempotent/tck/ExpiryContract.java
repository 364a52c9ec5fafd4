package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.LONG_TTL;
import static dev.idempotent.tck.ContractFixture.assertExpiresWithin;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Expiry and time, on the store's clock ({@link IdempotencyStoreContract#elapse}): renew extends a
 * lease, a claim whose lease ended lets a new owner in and fences the old one, and a completed
 * record frees its key when its ttl ends.
 */
interface ExpiryContract extends ContractGroup {
  @Test
  @DisplayName("renew extends the lease: the claim outlives its first lease")
  default void renewExtendsLease() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    Duration longer = fixture().shortLease().multipliedBy(4);
    store.claim(key, owner, "fp", fixture().shortLease());

    assertThat(store.renew(key, owner, longer)).as("renew by the owner").isTrue();
    fixture().elapse(fixture().pastShortLease());

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(owner);
    assertExpiresWithin(record, longer);
    ClaimResult other = store.claim(key, owner(), "fp", LONG_LEASE);
    assertThat(other.isAcquired())
        .as("claim by another owner after the renewed lease: %s", other)
        .isFalse();
    assertThat(other.existing().ownerToken()).isEqualTo(owner);
    assertThat(store.renew(key, owner, longer)).as("renew again").isTrue();
  }

  @Test
  @DisplayName("when the lease ends, a new owner acquires the key and the old owner is fenced")
  default void leaseEndLetsNewOwnerInAndFencesOldOwner() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String oldOwner = owner();
    String newOwner = owner();
    store.claim(key, oldOwner, "fp-old", fixture().shortLease());
    fixture().elapse(fixture().pastShortLease());

    assertThat(store.read(key)).as("read of a claim whose lease ended").isEmpty();
    ClaimResult takeover = store.claim(key, newOwner, "fp-new", LONG_LEASE);
    assertThat(takeover.isAcquired()).as("claim after the lease ended: %s", takeover).isTrue();

    assertThat(store.complete(key, oldOwner, new byte[] {1}, LONG_TTL))
        .as("complete by the old owner")
        .isFalse();
    assertThat(store.release(key, oldOwner)).as("release by the old owner").isFalse();
    assertThat(store.renew(key, oldOwner, LONG_LEASE)).as("renew by the old owner").isFalse();

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(newOwner);
    assertThat(record.fingerprint()).isEqualTo("fp-new");
    assertExpiresWithin(record, LONG_LEASE);
    assertThat(store.complete(key, newOwner, new byte[] {2}, LONG_TTL))
        .as("complete by the new owner")
        .isTrue();
    assertThat(fixture().readLive(key).outcome()).isEqualTo(new byte[] {2});
  }

  @Test
  @DisplayName("renew after the lease ended returns false")
  default void renewAfterLeaseEndIsFenced() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, fixture().shortLease());
    fixture().elapse(fixture().pastShortLease());

    assertThat(store.renew(key, owner, LONG_LEASE)).as("renew of an expired claim").isFalse();
    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL))
        .as("complete of an expired claim")
        .isFalse();
    assertThat(store.read(key)).as("the expired claim stays gone").isEmpty();
  }

  @Test
  @DisplayName("when the ttl of a COMPLETED record ends, the key is free again")
  default void ttlExpiryFreesCompletedKey() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, "fp", LONG_LEASE);
    store.complete(key, owner, new byte[] {1, 2}, fixture().shortLease());
    fixture().elapse(fixture().pastShortLease());

    assertThat(store.read(key)).as("read of an expired completed record").isEmpty();
    String next = owner();
    ClaimResult claim = store.claim(key, next, "fp", LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after the ttl ended: %s", claim).isTrue();
    assertThat(claim.isTakeover())
        .as("an expired COMPLETED record is acquired, not taken over: %s", claim)
        .isFalse();
    assertThat(fixture().readLive(key).ownerToken()).isEqualTo(next);
  }
}
