package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.LONG_TTL;
import static dev.idempotent.tck.ContractFixture.assertExpiresWithin;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Batch renewal ({@link IdempotencyStore#renewAll}), as the core's renewer uses it: every claim of
 * a batch is owner-checked on its own, the answer says per claim, in order, whether it was renewed
 * or lost, and a lost claim (another owner's, completed, released, expired) is left as it was.
 */
interface RenewalContract extends ContractGroup {
  @Test
  @DisplayName("renewAll renews every owned claim of a batch: each outlives its first lease")
  default void renewAllExtendsEveryOwnedClaim() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    Duration longer = fixture().shortLease().multipliedBy(4);
    List<HeldClaim> claims = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      RecordKey key = fixture().newKey();
      String owner = owner();
      store.claim(key, owner, "fp", fixture().shortLease());
      claims.add(new HeldClaim(key, owner));
    }

    assertThat(store.renewAll(claims, longer)).as("renewAll of owned claims").containsOnly(true);
    fixture().elapse(fixture().pastShortLease());

    for (HeldClaim c : claims) {
      IdempotencyRecord record = fixture().readLive(c.key());
      assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
      assertThat(record.ownerToken()).isEqualTo(c.ownerToken());
      assertExpiresWithin(record, longer);
    }
  }

  @Test
  @DisplayName(
      "renewAll fences each claim on its own: owned, another owner's, completed, released and"
          + " missing keys in one batch")
  default void renewAllFencesEachClaimOnItsOwn() {
    IdempotencyStore store = fixture().store();
    Duration lease = fixture().shortLease().multipliedBy(4);
    RecordKey owned = fixture().newKey();
    String owner = owner();
    store.claim(owned, owner, "fp", LONG_LEASE);
    RecordKey othersKey = fixture().newKey();
    String other = owner();
    store.claim(othersKey, other, "fp", lease);
    RecordKey completed = fixture().newKey();
    String completer = owner();
    store.claim(completed, completer, "fp", LONG_LEASE);
    byte[] outcome = "done".getBytes(StandardCharsets.UTF_8);
    store.complete(completed, completer, outcome, LONG_TTL);
    RecordKey released = fixture().newKey();
    String releaser = owner();
    store.claim(released, releaser, "fp", LONG_LEASE);
    store.release(released, releaser);
    RecordKey missing = fixture().newKey();
    RecordKey ownedToo = fixture().newKey();
    String ownerToo = owner();
    store.claim(ownedToo, ownerToo, "fp", LONG_LEASE);

    boolean[] renewed =
        store.renewAll(
            List.of(
                new HeldClaim(owned, owner),
                new HeldClaim(othersKey, owner()),
                new HeldClaim(completed, completer),
                new HeldClaim(released, releaser),
                new HeldClaim(missing, owner()),
                new HeldClaim(ownedToo, ownerToo)),
            LONG_LEASE.multipliedBy(2));

    assertThat(renewed)
        .as("renewed: owned, another owner's, completed, released, missing, owned")
        .containsExactly(true, false, false, false, false, true);
    IdempotencyRecord others = fixture().readLive(othersKey);
    assertThat(others.ownerToken()).as("owner of the other owner's claim").isEqualTo(other);
    assertExpiresWithin(others, lease);
    IdempotencyRecord done = fixture().readLive(completed);
    assertThat(done.status()).as("the completed record").isEqualTo(RecordStatus.COMPLETED);
    assertThat(done.outcome()).isEqualTo(outcome);
    assertExpiresWithin(done, LONG_TTL);
    assertThat(store.read(released)).as("the released key").isEmpty();
    assertThat(store.read(missing)).as("the missing key").isEmpty();
    assertExpiresWithin(fixture().readLive(owned), LONG_LEASE.multipliedBy(2));
    assertThat(fixture().readLive(owned).expiresIn())
        .as("the owned claim's new lease")
        .isGreaterThan(LONG_LEASE);
  }

  @Test
  @DisplayName("renewAll does not revive a claim whose lease ended: it is lost, the key free")
  default void renewAllOfExpiredClaimIsLost() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey expired = fixture().newKey();
    String late = owner();
    store.claim(expired, late, "fp", fixture().shortLease());
    RecordKey live = fixture().newKey();
    String holder = owner();
    store.claim(live, holder, "fp", LONG_LEASE);
    fixture().elapse(fixture().pastShortLease());

    boolean[] renewed =
        store.renewAll(
            List.of(new HeldClaim(expired, late), new HeldClaim(live, holder)), LONG_LEASE);

    assertThat(renewed).as("renewed: expired, live").containsExactly(false, true);
    assertThat(store.read(expired)).as("the expired claim after renewAll").isEmpty();
    assertThat(store.claim(expired, owner(), "fp", LONG_LEASE).isAcquired())
        .as("a new claim of the expired key")
        .isTrue();
  }

  @Test
  @DisplayName("renewAll answers a large batch claim by claim, in order")
  default void renewAllAnswersInOrder() {
    IdempotencyStore store = fixture().store();
    List<HeldClaim> batch = new ArrayList<>();
    boolean[] expected = new boolean[300];
    for (int i = 0; i < expected.length; i++) {
      RecordKey key = fixture().newKey();
      String owner = owner();
      store.claim(key, owner, "fp", LONG_LEASE);
      expected[i] = i % 3 != 1;
      batch.add(new HeldClaim(key, expected[i] ? owner : owner()));
    }

    assertThat(store.renewAll(batch, LONG_LEASE)).as("renewed, claim by claim").isEqualTo(expected);
    for (int i = 0; i < expected.length; i++) {
      if (!expected[i]) {
        assertThat(fixture().readLive(batch.get(i).key()).ownerToken())
            .as("owner of a claim renewed by another owner")
            .isNotEqualTo(batch.get(i).ownerToken());
      }
    }
  }
}
