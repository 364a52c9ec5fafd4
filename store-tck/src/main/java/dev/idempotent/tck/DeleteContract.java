package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.LONG_TTL;
import static dev.idempotent.tck.ContractFixture.assertCompletedBy;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The administrative delete: it removes a live record whatever its state and owner, fences the
 * holder of a deleted claim, answers {@code false} for a missing or expired key, and leaves every
 * other key and scope alone.
 */
interface DeleteContract extends ContractGroup {
  @Test
  @DisplayName(
      "delete of a COMPLETED record frees the key: read is empty and the next claim acquires it")
  default void deleteOfCompletedRecordFreesKey() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, "fp", LONG_LEASE);
    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL)).isTrue();

    assertThat(store.delete(key)).as("delete of a completed record").isTrue();

    assertThat(store.read(key)).as("read after delete").isEmpty();
    String next = owner();
    ClaimResult claim = store.claim(key, next, "fp", LONG_LEASE);
    assertThat(claim.isAcquired())
        .as("claim after delete of the completed record: %s", claim)
        .isTrue();
    assertThat(claim.isTakeover())
        .as("a deleted record is acquired, not taken over: %s", claim)
        .isFalse();
    assertThat(store.complete(key, next, new byte[] {2}, LONG_TTL))
        .as("complete by the next owner")
        .isTrue();
    assertThat(fixture().readLive(key).outcome()).isEqualTo(new byte[] {2});
  }

  @Test
  @DisplayName(
      "delete of an IN_PROGRESS record fences its holder, and a new claim acquires the key")
  default void deleteOfInProgressRecordFencesHolder() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String holder = owner();
    store.claim(key, holder, "fp-old", LONG_LEASE);

    assertThat(store.delete(key)).as("delete of a claim held by another owner").isTrue();

    assertThat(store.read(key)).as("read after delete").isEmpty();
    assertThat(store.complete(key, holder, new byte[] {1}, LONG_TTL))
        .as("complete by the deleted holder")
        .isFalse();
    assertThat(store.renew(key, holder, LONG_LEASE)).as("renew by the deleted holder").isFalse();
    assertThat(store.release(key, holder)).as("release by the deleted holder").isFalse();
    assertThat(store.read(key)).as("the deleted holder's calls wrote nothing").isEmpty();

    String next = owner();
    ClaimResult claim = store.claim(key, next, "fp-new", LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after delete of the claim: %s", claim).isTrue();
    assertThat(store.complete(key, holder, new byte[] {1}, LONG_TTL))
        .as("complete by the deleted holder, after " + "a new claim")
        .isFalse();
    assertThat(store.renew(key, holder, LONG_LEASE))
        .as("renew by the deleted holder, after a new claim")
        .isFalse();
    assertThat(store.release(key, holder))
        .as("release by the deleted holder, after a new claim")
        .isFalse();
    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(next);
    assertThat(record.fingerprint()).isEqualTo("fp-new");
    assertThat(store.complete(key, next, new byte[] {2}, LONG_TTL))
        .as("complete by the new owner")
        .isTrue();
    assertThat(fixture().readLive(key).outcome()).isEqualTo(new byte[] {2});
  }

  @Test
  @DisplayName(
      "delete of a missing key returns false and creates nothing; a second delete returns false")
  default void deleteOfMissingKeyReturnsFalse() {
    IdempotencyStore store = fixture().store();
    RecordKey missing = fixture().newKey();

    assertThat(store.delete(missing)).as("delete of a key never written").isFalse();

    assertThat(store.read(missing)).isEmpty();
    ClaimResult claim = store.claim(missing, owner(), null, LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after delete of a missing key: %s", claim).isTrue();
    assertThat(claim.isTakeover()).as("the delete left no record behind: %s", claim).isFalse();
    assertThat(store.delete(missing)).as("first delete of the claim").isTrue();
    assertThat(store.delete(missing)).as("second delete of the same key").isFalse();
    assertThat(store.read(missing)).isEmpty();
  }

  @Test
  @DisplayName("delete of a record whose lease or ttl ended returns false")
  default void deleteOfExpiredRecordReturnsFalse() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey claimed = fixture().newKey();
    RecordKey completed = fixture().newKey();
    String owner = owner();
    store.claim(claimed, owner(), null, fixture().shortLease());
    store.claim(completed, owner, null, LONG_LEASE);
    assertThat(store.complete(completed, owner, new byte[] {1}, fixture().shortLease())).isTrue();
    fixture().elapse(fixture().pastShortLease());

    assertThat(store.delete(claimed)).as("delete of a claim whose lease ended").isFalse();
    assertThat(store.delete(completed))
        .as("delete of a completed record whose ttl ended")
        .isFalse();
    assertThat(store.read(claimed)).isEmpty();
    assertThat(store.read(completed)).isEmpty();
    assertThat(store.claim(claimed, owner(), null, LONG_LEASE).isAcquired())
        .as("claim after the lease ended")
        .isTrue();
  }

  @Test
  @DisplayName(
      "delete of one key leaves other keys in its scope and the same key in other scopes alone")
  default void deleteLeavesOtherKeysAndScopes() {
    IdempotencyStore store = fixture().store();
    String scope = fixture().scope();
    RecordKey target = RecordKey.of(scope, "order-1").fittedTo(store.maxKeyLength());
    List<RecordKey> others =
        List.of(
            RecordKey.of(scope, "order-2").fittedTo(store.maxKeyLength()),
            RecordKey.of(scope, "order-10").fittedTo(store.maxKeyLength()),
            RecordKey.of(scope, "order-").fittedTo(store.maxKeyLength()),
            RecordKey.of(scope + "-other", "order-1").fittedTo(store.maxKeyLength()),
            RecordKey.of(scope + ":order-1", "order-1").fittedTo(store.maxKeyLength()));
    Map<RecordKey, String> owners = new java.util.LinkedHashMap<>();
    for (RecordKey k : others) {
      String owner = owner();
      assertThat(store.claim(k, owner, "fp", LONG_LEASE).isAcquired())
          .as("claim of %s", k)
          .isTrue();
      owners.put(k, owner);
    }
    RecordKey completedOther = others.get(0);
    assertThat(store.complete(completedOther, owners.get(completedOther), new byte[] {9}, LONG_TTL))
        .isTrue();
    store.claim(target, owner(), "fp", LONG_LEASE);

    assertThat(store.delete(target)).as("delete of the target key").isTrue();

    assertThat(store.read(target)).isEmpty();
    for (RecordKey k : others) {
      IdempotencyRecord record = fixture().readLive(k);
      assertCompletedBy(record, owners.get(k), "record of " + k + " after deleting " + target);
      assertThat(record.status())
          .as("status of %s", k)
          .isEqualTo(k.equals(completedOther) ? RecordStatus.COMPLETED : RecordStatus.IN_PROGRESS);
    }
    assertThat(fixture().readLive(completedOther).outcome()).isEqualTo(new byte[] {9});
    String holder = owners.get(others.get(1));
    assertThat(store.complete(others.get(1), holder, new byte[] {3}, LONG_TTL))
        .as("the other holder completes")
        .isTrue();
  }
}
