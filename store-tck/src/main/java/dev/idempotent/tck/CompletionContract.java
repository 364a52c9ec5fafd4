package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.LONG_TTL;
import static dev.idempotent.tck.ContractFixture.assertCompletedBy;
import static dev.idempotent.tck.ContractFixture.assertExpiresWithin;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Completion, replay and read: complete records the outcome by value, a claim on a completed key
 * returns it (replay) and writes nothing, outcomes of 0 bytes and of 1 MiB with every byte value
 * round-trip exactly (a store whose backend caps a record below 1 MiB: its largest, and a larger
 * one releases the key), a null fingerprint stays null, and read never writes.
 */
interface CompletionContract extends ContractGroup {
  @Test
  @DisplayName("complete records the outcome, and read returns it")
  default void completeThenRead() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    byte[] outcome = "{\"status\":201}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Duration ttl = Duration.ofMinutes(5);
    store.claim(key, owner, "fp-x", LONG_LEASE);

    assertThat(store.complete(key, owner, outcome.clone(), ttl))
        .as("complete by the owner")
        .isTrue();

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(record.isCompleted()).isTrue();
    assertCompletedBy(record, owner, "the completed record");
    assertThat(record.fingerprint()).isEqualTo("fp-x");
    assertThat(record.outcome()).isEqualTo(outcome);
    assertThat(record.key()).isEqualTo(key);
    assertExpiresWithin(record, ttl);
  }

  @Test
  @DisplayName("a claim on a completed key returns the COMPLETED record and writes nothing")
  default void claimAfterCompleteReturnsCompletedRecord() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    byte[] outcome = {1, 2, 3};
    store.claim(key, owner, "fp-c", LONG_LEASE);
    store.complete(key, owner, outcome, LONG_TTL);

    ClaimResult again = store.claim(key, owner(), "fp-other", LONG_LEASE);

    assertThat(again.isAcquired()).as("claim on a completed key: %s", again).isFalse();
    IdempotencyRecord existing = again.existing();
    assertThat(existing.status()).isEqualTo(RecordStatus.COMPLETED);
    assertCompletedBy(existing, owner, "the record a claim returned");
    assertThat(existing.fingerprint()).isEqualTo("fp-c");
    assertThat(existing.outcome()).isEqualTo(new byte[] {1, 2, 3});
    assertExpiresWithin(existing, LONG_TTL);
    IdempotencyRecord stored = fixture().readLive(key);
    assertThat(stored.status()).isEqualTo(RecordStatus.COMPLETED);
    assertCompletedBy(stored, owner, "the record read");
  }

  @Test
  @DisplayName(
      "the outcome is stored as given: changing the caller's array afterwards changes nothing")
  default void outcomeIsStoredByValue() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    byte[] outcome = {10, 20, 30};
    store.claim(key, owner, null, LONG_LEASE);
    store.complete(key, owner, outcome, LONG_TTL);

    outcome[0] = 99;

    assertThat(fixture().readLive(key).outcome()).isEqualTo(new byte[] {10, 20, 30});
  }

  @Test
  @DisplayName(
      "a 1 MiB binary outcome (or the store's largest, when its backend caps a record below it)"
          + " with all 256 byte values round-trips exactly")
  default void largeBinaryOutcomeRoundTrip() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    byte[] outcome = new byte[fixture().largestOutcome()];
    new Random(42).nextBytes(outcome);
    for (int i = 0; i < 256; i++) {
      outcome[i] = (byte) i;
      outcome[outcome.length - 256 + i] = (byte) (255 - i);
    }
    store.claim(key, owner, "fp", LONG_LEASE);

    assertThat(store.complete(key, owner, outcome.clone(), LONG_TTL)).isTrue();

    assertThat(Arrays.equals(fixture().readLive(key).outcome(), outcome))
        .as("read outcome equals the %s bytes written", outcome.length)
        .isTrue();
    byte[] replayed = store.claim(key, owner(), "fp", LONG_LEASE).existing().outcome();
    assertThat(Arrays.equals(replayed, outcome))
        .as("replayed outcome equals the %s bytes written", outcome.length)
        .isTrue();
  }

  @Test
  @DisplayName(
      "a 1 MiB outcome is recorded; a store whose backend caps a record below 1 MiB refuses it by"
          + " releasing the key, and leaves the claim as it was")
  default void oneMebibyteOutcomeIsRecordedOrRefusedWithTheClaimKept() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, "fp", LONG_LEASE);
    if (fixture().largestOutcome() >= ContractFixture.MIB) {
      assertThat(store.complete(key, owner, new byte[ContractFixture.MIB], LONG_TTL))
          .as("complete of a 1 MiB outcome, within the store's limit")
          .isTrue();
      assertThat(fixture().readLive(key).status()).isEqualTo(RecordStatus.COMPLETED);
      return;
    }

    assertThatThrownBy(() -> store.complete(key, owner, new byte[ContractFixture.MIB], LONG_TTL))
        .as("complete of a 1 MiB outcome")
        .isInstanceOfSatisfying(
            OutcomeNotRecordedException.class,
            e -> assertThat(e.failsTheCall()).as("fails the call").isFalse());

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(owner);
    assertThat(store.release(key, owner)).as("release after the refusal").isTrue();
  }

  @Test
  @DisplayName("an empty outcome (0 bytes) round-trips as empty, not as missing")
  default void emptyOutcomeRoundTrip() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);

    assertThat(store.complete(key, owner, new byte[0], LONG_TTL)).isTrue();

    IdempotencyRecord record = fixture().readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(record.outcome()).isNotNull().isEmpty();
    IdempotencyRecord replay = store.claim(key, owner(), null, LONG_LEASE).existing();
    assertThat(replay.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(replay.outcome()).isNotNull().isEmpty();
  }

  @Test
  @DisplayName("read of a missing key is empty")
  default void readOfMissingKeyIsEmpty() {
    IdempotencyStore store = fixture().store();
    String scope = fixture().scope();
    assertThat(store.read(fixture().newKey())).isEmpty();
    assertThat(store.read(RecordKey.of(scope, "never-written").fittedTo(store.maxKeyLength())))
        .isEmpty();
  }

  @Test
  @DisplayName("read never writes: it creates, extends and changes nothing")
  default void readNeverWrites() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey missing = fixture().newKey();
    for (int i = 0; i < 3; i++) {
      assertThat(store.read(missing)).isEmpty();
    }
    ClaimResult claim = store.claim(missing, owner(), null, LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after reads of a missing key: %s", claim).isTrue();
    assertThat(claim.isTakeover()).as("reads left no record behind: %s", claim).isFalse();

    RecordKey held = fixture().newKey();
    String owner = owner();
    store.claim(held, owner, "fp", fixture().shortLease());
    IdempotencyRecord before = fixture().readLive(held);
    assertThat(store.read(held)).contains(before);
    fixture().elapse(fixture().pastShortLease());
    assertThat(store.read(held)).as("reading did not extend the lease").isEmpty();
  }

  @Test
  @DisplayName("a null fingerprint round-trips as null")
  default void nullFingerprintRoundTrip() {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);

    ClaimResult other = store.claim(key, owner(), "fp-other", LONG_LEASE);
    assertThat(other.existing().fingerprint()).as("fingerprint of the in-progress record").isNull();
    assertThat(fixture().readLive(key).fingerprint()).isNull();

    store.complete(key, owner, new byte[] {1}, LONG_TTL);
    assertThat(fixture().readLive(key).fingerprint())
        .as("fingerprint of the completed record")
        .isNull();
    assertThat(store.claim(key, owner(), null, LONG_LEASE).existing().fingerprint()).isNull();
  }
}
