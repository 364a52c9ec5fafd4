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
 * Claim, release and fencing: a claim acquires a free key or returns the live record without
 * writing; release frees the key; complete, release and renew by anyone but the holder (or on a
 * missing or completed record) return {@code false} and change nothing.
 */
interface ClaimContract extends ContractGroup {
  @Test
  @DisplayName("claim on a free key acquires it")
  default void claimOnFreeKeyAcquires() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();

    ClaimResult result = store.claim(key, owner, "fp-1", LONG_LEASE);

    assertThat(result.isAcquired()).as("claim on a free key: %s", result).isTrue();
    assertThat(result.isTakeover())
        .as("a free key is acquired, not taken over: %s", result)
        .isFalse();
    assertThat(result.existing()).isNull();
    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(owner);
    assertThat(record.fingerprint()).isEqualTo("fp-1");
    assertThat(record.outcome()).isNull();
    assertThat(record.key()).isEqualTo(key);
    assertExpiresWithin(record, LONG_LEASE);
  }

  @Test
  @DisplayName("a second claim by another owner gets the first owner's IN_PROGRESS record")
  default void secondClaimSeesInProgressRecord() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String first = owner();
    Duration lease = Duration.ofSeconds(30);
    assertThat(store.claim(key, first, "fp-first", lease).isAcquired()).isTrue();

    ClaimResult second = store.claim(key, owner(), "fp-second", lease);

    assertThat(second.isAcquired()).as("second claim: %s", second).isFalse();
    assertThat(second.isTakeover()).isFalse();
    IdempotencyRecord existing = second.existing();
    assertThat(existing).as("existing record of the second claim").isNotNull();
    assertThat(existing.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(existing.ownerToken()).isEqualTo(first);
    assertThat(existing.fingerprint()).isEqualTo("fp-first");
    assertThat(existing.outcome()).isNull();
    assertThat(existing.key()).isEqualTo(key);
    assertExpiresWithin(existing, lease);
    assertThat(fixture().readLive(key).ownerToken())
        .as("the second claim wrote nothing")
        .isEqualTo(first);
  }

  @Test
  @DisplayName("release frees the key: the next claim acquires it")
  default void releaseFreesKey() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, "fp", LONG_LEASE);

    assertThat(store.release(key, owner)).as("release by the owner").isTrue();

    assertThat(store.read(key)).as("read after release").isEmpty();
    String next = owner();
    ClaimResult claim = store.claim(key, next, "fp", LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after release: %s", claim).isTrue();
    assertThat(fixture().readLive(key).ownerToken()).isEqualTo(next);
  }

  @Test
  @DisplayName("release, complete and renew by a wrong owner return false and change nothing")
  default void wrongOwnerIsFenced() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    String stranger = owner();
    store.claim(key, owner, "fp-owner", LONG_LEASE);

    assertThat(store.release(key, stranger)).as("release by a wrong owner").isFalse();
    assertThat(store.complete(key, stranger, new byte[] {7}, LONG_TTL))
        .as("complete by a wrong owner")
        .isFalse();
    assertThat(store.renew(key, stranger, LONG_LEASE)).as("renew by a wrong owner").isFalse();

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(owner);
    assertThat(record.fingerprint()).isEqualTo("fp-owner");
    assertThat(record.outcome()).isNull();
    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL))
        .as("the owner still completes")
        .isTrue();
  }

  @Test
  @DisplayName("release, complete and renew on a missing key return false and create nothing")
  default void operationsOnMissingKeyAreFenced() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();

    assertThat(store.release(key, owner)).as("release of a missing key").isFalse();
    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL))
        .as("complete of a missing key")
        .isFalse();
    assertThat(store.renew(key, owner, LONG_LEASE)).as("renew of a missing key").isFalse();

    assertThat(store.read(key)).isEmpty();
  }

  @Test
  @DisplayName("complete twice: the second complete returns false and keeps the first outcome")
  default void completeTwice() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);

    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL)).as("first complete").isTrue();
    assertThat(store.complete(key, owner, new byte[] {2}, LONG_TTL))
        .as("second complete")
        .isFalse();

    assertThat(fixture().readLive(key).outcome()).isEqualTo(new byte[] {1});
  }

  @Test
  @DisplayName("release and renew of a completed record return false and keep it")
  default void completedRecordCannotBeReleasedOrRenewed() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);
    store.complete(key, owner, new byte[] {5}, LONG_TTL);

    assertThat(store.release(key, owner)).as("release of a completed record").isFalse();
    assertThat(store.renew(key, owner, LONG_LEASE)).as("renew of a completed record").isFalse();

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(record.outcome()).isEqualTo(new byte[] {5});
    assertExpiresWithin(record, LONG_TTL);
  }
}
