package dev.idempotent.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link IdempotencyStore} passes: claim, complete, release, renew and read with
 * their fencing rules, the administrative delete, lease and ttl expiry, binary-safe outcomes,
 * unicode, long and ill-formed keys (fitted as the executor fits them), change notification and
 * claim races. It checks the protocol written in the javadoc of {@link IdempotencyStore}.
 *
 * <h2>Use</h2>
 *
 * Add {@code dev.idempotent:idempotent-store-tck} as a test dependency and extend this class:
 *
 * <pre>{@code
 * class MyStoreContractTest extends IdempotencyStoreContract {
 *   @Override
 *   protected IdempotencyStore createStore() {
 *     return MyStore.builder().connectTo(...).build();
 *   }
 * }
 * }</pre>
 *
 * {@link #createStore()} runs before each test and {@link #closeStore} after it. Each test works in
 * its own random scope ({@code tck-} and a UUID), so a store on a shared backend needs no cleaning
 * between tests.
 *
 * <h2>Time</h2>
 *
 * Expiry tests wait with {@link #elapse(Duration)}, which sleeps by default. A store whose clock
 * can be injected overrides it to advance a fake clock instead, so the kit runs without sleeping.
 * Leases and ttls in those tests are {@link #shortLease()} (500 ms by default); a store whose
 * backend counts time coarsely may return a longer one. Waiting for a change uses real time:
 * override {@link #notifiesWaiters()} to return {@code true} when {@link
 * IdempotencyStore#awaitChange} wakes up as soon as the holder completes or releases (or the key is
 * deleted); the kit then checks that it does.
 */
public abstract class IdempotencyStoreContract {
  /** Lease of claims that must not expire during a test. */
  private static final Duration LONG_LEASE = Duration.ofSeconds(60);

  /** Ttl of completed records that must not expire during a test. */
  private static final Duration LONG_TTL = Duration.ofMinutes(10);

  private static final Duration NOTIFIED_MAX_WAIT = Duration.ofSeconds(5);
  private static final Duration NOTIFIED_WITHIN = Duration.ofMillis(2500);
  private static final Duration WAIT_SLACK = Duration.ofSeconds(2);

  private IdempotencyStore store;
  private String scope;
  private final AtomicInteger keyCounter = new AtomicInteger();

  /**
   * Creates the store under test. Called before each test; returns a fresh store or one whose
   * backend may hold records of other tests (each test uses its own scope).
   */
  protected abstract IdempotencyStore createStore();

  /**
   * Lets {@code duration} pass on the store's clock. Sleeps by default; stores with an injectable
   * clock advance it instead.
   */
  protected void elapse(Duration duration) throws InterruptedException {
    long nanos = duration.toNanos();
    if (nanos > 0) {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }
  }

  /** The lease and ttl that expiry tests let run out. 500 ms by default. */
  protected Duration shortLease() {
    return Duration.ofMillis(500);
  }

  /** Closes the store after each test. Calls {@link IdempotencyStore#close()} by default. */
  protected void closeStore(IdempotencyStore store) {
    store.close();
  }

  /**
   * Whether {@link IdempotencyStore#awaitChange} returns as soon as the holder completes or
   * releases the key. {@code false} by default (the kit then checks only that the wait is bounded
   * by its {@code maxWait}).
   */
  protected boolean notifiesWaiters() {
    return false;
  }

  /** The store under test, for checks added by a subclass. */
  protected final IdempotencyStore store() {
    return store;
  }

  /** A fresh key in this test's scope, fitted to the store's key length. */
  protected final RecordKey newKey() {
    return RecordKey.of(scope, "key-" + keyCounter.incrementAndGet())
        .fittedTo(store.maxKeyLength());
  }

  /** This test's random scope. */
  protected final String scope() {
    return scope;
  }

  @BeforeEach
  final void openStore() {
    scope = "tck-" + UUID.randomUUID();
    store = createStore();
    assertThat(store).as("createStore()").isNotNull();
  }

  @AfterEach
  final void shutStore() {
    if (store != null) {
      closeStore(store);
      store = null;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // claim

  @Test
  @DisplayName("claim on a free key acquires it")
  void claimOnFreeKeyAcquires() {
    RecordKey key = newKey();
    String owner = owner();

    ClaimResult result = store.claim(key, owner, "fp-1", LONG_LEASE);

    assertThat(result.isAcquired()).as("claim on a free key: %s", result).isTrue();
    assertThat(result.isTakeover())
        .as("a free key is acquired, not taken over: %s", result)
        .isFalse();
    assertThat(result.existing()).isNull();
    IdempotencyRecord record = readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(owner);
    assertThat(record.fingerprint()).isEqualTo("fp-1");
    assertThat(record.outcome()).isNull();
    assertThat(record.key()).isEqualTo(key);
    assertExpiresWithin(record, LONG_LEASE);
  }

  @Test
  @DisplayName("a second claim by another owner gets the first owner's IN_PROGRESS record")
  void secondClaimSeesInProgressRecord() {
    RecordKey key = newKey();
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
    assertThat(readLive(key).ownerToken()).as("the second claim wrote nothing").isEqualTo(first);
  }

  @Test
  @DisplayName("complete records the outcome, and read returns it")
  void completeThenRead() {
    RecordKey key = newKey();
    String owner = owner();
    byte[] outcome = "{\"status\":201}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Duration ttl = Duration.ofMinutes(5);
    store.claim(key, owner, "fp-x", LONG_LEASE);

    assertThat(store.complete(key, owner, outcome.clone(), ttl))
        .as("complete by the owner")
        .isTrue();

    IdempotencyRecord record = readLive(key);
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
  void claimAfterCompleteReturnsCompletedRecord() {
    RecordKey key = newKey();
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
    IdempotencyRecord stored = readLive(key);
    assertThat(stored.status()).isEqualTo(RecordStatus.COMPLETED);
    assertCompletedBy(stored, owner, "the record read");
  }

  @Test
  @DisplayName(
      "the outcome is stored as given: changing the caller's array afterwards changes nothing")
  void outcomeIsStoredByValue() {
    RecordKey key = newKey();
    String owner = owner();
    byte[] outcome = {10, 20, 30};
    store.claim(key, owner, null, LONG_LEASE);
    store.complete(key, owner, outcome, LONG_TTL);

    outcome[0] = 99;

    assertThat(readLive(key).outcome()).isEqualTo(new byte[] {10, 20, 30});
  }

  // ----------------------------------------------------------------------------------------------
  // release

  @Test
  @DisplayName("release frees the key: the next claim acquires it")
  void releaseFreesKey() {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, "fp", LONG_LEASE);

    assertThat(store.release(key, owner)).as("release by the owner").isTrue();

    assertThat(store.read(key)).as("read after release").isEmpty();
    String next = owner();
    ClaimResult claim = store.claim(key, next, "fp", LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after release: %s", claim).isTrue();
    assertThat(readLive(key).ownerToken()).isEqualTo(next);
  }

  // ----------------------------------------------------------------------------------------------
  // fencing

  @Test
  @DisplayName("release, complete and renew by a wrong owner return false and change nothing")
  void wrongOwnerIsFenced() {
    RecordKey key = newKey();
    String owner = owner();
    String stranger = owner();
    store.claim(key, owner, "fp-owner", LONG_LEASE);

    assertThat(store.release(key, stranger)).as("release by a wrong owner").isFalse();
    assertThat(store.complete(key, stranger, new byte[] {7}, LONG_TTL))
        .as("complete by a wrong owner")
        .isFalse();
    assertThat(store.renew(key, stranger, LONG_LEASE)).as("renew by a wrong owner").isFalse();

    IdempotencyRecord record = readLive(key);
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
  void operationsOnMissingKeyAreFenced() {
    RecordKey key = newKey();
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
  void completeTwice() {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);

    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL)).as("first complete").isTrue();
    assertThat(store.complete(key, owner, new byte[] {2}, LONG_TTL))
        .as("second complete")
        .isFalse();

    assertThat(readLive(key).outcome()).isEqualTo(new byte[] {1});
  }

  @Test
  @DisplayName("release and renew of a completed record return false and keep it")
  void completedRecordCannotBeReleasedOrRenewed() {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);
    store.complete(key, owner, new byte[] {5}, LONG_TTL);

    assertThat(store.release(key, owner)).as("release of a completed record").isFalse();
    assertThat(store.renew(key, owner, LONG_LEASE)).as("renew of a completed record").isFalse();

    IdempotencyRecord record = readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(record.outcome()).isEqualTo(new byte[] {5});
    assertExpiresWithin(record, LONG_TTL);
  }

  // ----------------------------------------------------------------------------------------------
  // delete

  @Test
  @DisplayName(
      "delete of a COMPLETED record frees the key: read is empty and the next claim acquires it")
  void deleteOfCompletedRecordFreesKey() {
    RecordKey key = newKey();
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
    assertThat(readLive(key).outcome()).isEqualTo(new byte[] {2});
  }

  @Test
  @DisplayName(
      "delete of an IN_PROGRESS record fences its holder, and a new claim acquires the key")
  void deleteOfInProgressRecordFencesHolder() {
    RecordKey key = newKey();
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
    IdempotencyRecord record = readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(next);
    assertThat(record.fingerprint()).isEqualTo("fp-new");
    assertThat(store.complete(key, next, new byte[] {2}, LONG_TTL))
        .as("complete by the new owner")
        .isTrue();
    assertThat(readLive(key).outcome()).isEqualTo(new byte[] {2});
  }

  @Test
  @DisplayName(
      "delete of a missing key returns false and creates nothing; a second delete returns false")
  void deleteOfMissingKeyReturnsFalse() {
    RecordKey missing = newKey();

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
  void deleteOfExpiredRecordReturnsFalse() throws InterruptedException {
    RecordKey claimed = newKey();
    RecordKey completed = newKey();
    String owner = owner();
    store.claim(claimed, owner(), null, shortLease());
    store.claim(completed, owner, null, LONG_LEASE);
    assertThat(store.complete(completed, owner, new byte[] {1}, shortLease())).isTrue();
    elapse(pastShortLease());

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
  void deleteLeavesOtherKeysAndScopes() {
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
      IdempotencyRecord record = readLive(k);
      assertCompletedBy(record, owners.get(k), "record of " + k + " after deleting " + target);
      assertThat(record.status())
          .as("status of %s", k)
          .isEqualTo(k.equals(completedOther) ? RecordStatus.COMPLETED : RecordStatus.IN_PROGRESS);
    }
    assertThat(readLive(completedOther).outcome()).isEqualTo(new byte[] {9});
    String holder = owners.get(others.get(1));
    assertThat(store.complete(others.get(1), holder, new byte[] {3}, LONG_TTL))
        .as("the other holder completes")
        .isTrue();
  }

  // ----------------------------------------------------------------------------------------------
  // time

  @Test
  @DisplayName("renew extends the lease: the claim outlives its first lease")
  void renewExtendsLease() throws InterruptedException {
    RecordKey key = newKey();
    String owner = owner();
    Duration longer = shortLease().multipliedBy(4);
    store.claim(key, owner, "fp", shortLease());

    assertThat(store.renew(key, owner, longer)).as("renew by the owner").isTrue();
    elapse(pastShortLease());

    IdempotencyRecord record = readLive(key);
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
  void leaseEndLetsNewOwnerInAndFencesOldOwner() throws InterruptedException {
    RecordKey key = newKey();
    String oldOwner = owner();
    String newOwner = owner();
    store.claim(key, oldOwner, "fp-old", shortLease());
    elapse(pastShortLease());

    assertThat(store.read(key)).as("read of a claim whose lease ended").isEmpty();
    ClaimResult takeover = store.claim(key, newOwner, "fp-new", LONG_LEASE);
    assertThat(takeover.isAcquired()).as("claim after the lease ended: %s", takeover).isTrue();

    assertThat(store.complete(key, oldOwner, new byte[] {1}, LONG_TTL))
        .as("complete by the old owner")
        .isFalse();
    assertThat(store.release(key, oldOwner)).as("release by the old owner").isFalse();
    assertThat(store.renew(key, oldOwner, LONG_LEASE)).as("renew by the old owner").isFalse();

    IdempotencyRecord record = readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(record.ownerToken()).isEqualTo(newOwner);
    assertThat(record.fingerprint()).isEqualTo("fp-new");
    assertExpiresWithin(record, LONG_LEASE);
    assertThat(store.complete(key, newOwner, new byte[] {2}, LONG_TTL))
        .as("complete by the new owner")
        .isTrue();
    assertThat(readLive(key).outcome()).isEqualTo(new byte[] {2});
  }

  @Test
  @DisplayName("renew after the lease ended returns false")
  void renewAfterLeaseEndIsFenced() throws InterruptedException {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, shortLease());
    elapse(pastShortLease());

    assertThat(store.renew(key, owner, LONG_LEASE)).as("renew of an expired claim").isFalse();
    assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL))
        .as("complete of an expired claim")
        .isFalse();
    assertThat(store.read(key)).as("the expired claim stays gone").isEmpty();
  }

  @Test
  @DisplayName("when the ttl of a COMPLETED record ends, the key is free again")
  void ttlExpiryFreesCompletedKey() throws InterruptedException {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, "fp", LONG_LEASE);
    store.complete(key, owner, new byte[] {1, 2}, shortLease());
    elapse(pastShortLease());

    assertThat(store.read(key)).as("read of an expired completed record").isEmpty();
    String next = owner();
    ClaimResult claim = store.claim(key, next, "fp", LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after the ttl ended: %s", claim).isTrue();
    assertThat(claim.isTakeover())
        .as("an expired COMPLETED record is acquired, not taken over: %s", claim)
        .isFalse();
    assertThat(readLive(key).ownerToken()).isEqualTo(next);
  }

  // ----------------------------------------------------------------------------------------------
  // read

  @Test
  @DisplayName("read of a missing key is empty")
  void readOfMissingKeyIsEmpty() {
    assertThat(store.read(newKey())).isEmpty();
    assertThat(store.read(RecordKey.of(scope, "never-written").fittedTo(store.maxKeyLength())))
        .isEmpty();
  }

  @Test
  @DisplayName("read never writes: it creates, extends and changes nothing")
  void readNeverWrites() throws InterruptedException {
    RecordKey missing = newKey();
    for (int i = 0; i < 3; i++) {
      assertThat(store.read(missing)).isEmpty();
    }
    ClaimResult claim = store.claim(missing, owner(), null, LONG_LEASE);
    assertThat(claim.isAcquired()).as("claim after reads of a missing key: %s", claim).isTrue();
    assertThat(claim.isTakeover()).as("reads left no record behind: %s", claim).isFalse();

    RecordKey held = newKey();
    String owner = owner();
    store.claim(held, owner, "fp", shortLease());
    IdempotencyRecord before = readLive(held);
    assertThat(store.read(held)).contains(before);
    elapse(pastShortLease());
    assertThat(store.read(held)).as("reading did not extend the lease").isEmpty();
  }

  @Test
  @DisplayName("a null fingerprint round-trips as null")
  void nullFingerprintRoundTrip() {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);

    ClaimResult other = store.claim(key, owner(), "fp-other", LONG_LEASE);
    assertThat(other.existing().fingerprint()).as("fingerprint of the in-progress record").isNull();
    assertThat(readLive(key).fingerprint()).isNull();

    store.complete(key, owner, new byte[] {1}, LONG_TTL);
    assertThat(readLive(key).fingerprint()).as("fingerprint of the completed record").isNull();
    assertThat(store.claim(key, owner(), null, LONG_LEASE).existing().fingerprint()).isNull();
  }

  // ----------------------------------------------------------------------------------------------
  // outcomes

  @Test
  @DisplayName("a 1 MiB binary outcome with all 256 byte values round-trips exactly")
  void largeBinaryOutcomeRoundTrip() {
    RecordKey key = newKey();
    String owner = owner();
    byte[] outcome = new byte[1024 * 1024];
    new Random(42).nextBytes(outcome);
    for (int i = 0; i < 256; i++) {
      outcome[i] = (byte) i;
      outcome[outcome.length - 256 + i] = (byte) (255 - i);
    }
    store.claim(key, owner, "fp", LONG_LEASE);

    assertThat(store.complete(key, owner, outcome.clone(), LONG_TTL)).isTrue();

    assertThat(Arrays.equals(readLive(key).outcome(), outcome))
        .as("read outcome equals the 1 MiB written")
        .isTrue();
    byte[] replayed = store.claim(key, owner(), "fp", LONG_LEASE).existing().outcome();
    assertThat(Arrays.equals(replayed, outcome))
        .as("replayed outcome equals the 1 MiB written")
        .isTrue();
  }

  @Test
  @DisplayName("an empty outcome (0 bytes) round-trips as empty, not as missing")
  void emptyOutcomeRoundTrip() {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);

    assertThat(store.complete(key, owner, new byte[0], LONG_TTL)).isTrue();

    IdempotencyRecord record = readLive(key);
    assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(record.outcome()).isNotNull().isEmpty();
    IdempotencyRecord replay = store.claim(key, owner(), null, LONG_LEASE).existing();
    assertThat(replay.status()).isEqualTo(RecordStatus.COMPLETED);
    assertThat(replay.outcome()).isNotNull().isEmpty();
  }

  // ----------------------------------------------------------------------------------------------
  // keys

  @Test
  @DisplayName("unicode and punctuation in keys and scopes keep records distinct")
  void unicodeKeysAndScopesStayDistinct() {
    List<String> keys =
        List.of(
            "plain",
            "Plain",
            "plain ",
            "emoji 😀🎉",
            "中文键",
            "日本語のキー",
            "with space",
            " leading",
            "{braces}",
            "{plain}",
            "quote\"double",
            "quote'single",
            "new\nline",
            "tab\tkey",
            "back\\slash",
            "per%cent",
            "a:b",
            "a/b",
            "a|b",
            "ünïcödé",
            "ünïcödé".toUpperCase());
    List<String> scopes = List.of(scope, scope + " 😀 {x}", scope + "-中文\n\"'");
    Map<RecordKey, String> owners = new java.util.LinkedHashMap<>();
    for (String s : scopes) {
      for (String k : keys) {
        RecordKey key = RecordKey.of(s, k).fittedTo(store.maxKeyLength());
        String owner = owner();
        ClaimResult result = store.claim(key, owner, "fp-" + owners.size(), LONG_LEASE);
        assertThat(result.isAcquired())
            .as("claim of key %s in scope %s: %s", k, s, result)
            .isTrue();
        owners.put(key, owner);
      }
    }
    // a scope/key split must not be confused with another split of the same characters
    RecordKey left = RecordKey.of(scope + ":a", "b").fittedTo(store.maxKeyLength());
    RecordKey right = RecordKey.of(scope, "a:b").fittedTo(store.maxKeyLength());
    RecordKey leftSlash = RecordKey.of(scope + "/a", "b").fittedTo(store.maxKeyLength());
    for (RecordKey k : List.of(left, leftSlash)) {
      String owner = owner();
      assertThat(store.claim(k, owner, null, LONG_LEASE).isAcquired())
          .as("claim of %s", k)
          .isTrue();
      owners.put(k, owner);
    }
    assertThat(owners.get(right)).isNotNull();

    owners.forEach(
        (key, owner) -> {
          IdempotencyRecord record = readLive(key);
          assertThat(record.ownerToken()).as("owner of %s", key).isEqualTo(owner);
          assertThat(record.key()).isEqualTo(key);
        });
  }

  @Test
  @DisplayName(
      "1,000-character keys work once fitted, and two differing only in the last character stay"
          + " distinct")
  void longKeysStayDistinct() {
    String prefix = "k".repeat(999);
    RecordKey first = RecordKey.of(scope, prefix + "1").fittedTo(store.maxKeyLength());
    RecordKey second = RecordKey.of(scope, prefix + "2").fittedTo(store.maxKeyLength());
    assertThat(first).isNotEqualTo(second);
    String owner1 = owner();
    String owner2 = owner();

    assertThat(store.claim(first, owner1, "fp1", LONG_LEASE).isAcquired())
        .as("claim of the first long key")
        .isTrue();
    assertThat(store.claim(second, owner2, "fp2", LONG_LEASE).isAcquired())
        .as("claim of the second long key")
        .isTrue();
    assertThat(store.complete(first, owner1, new byte[] {1}, LONG_TTL)).isTrue();

    assertThat(readLive(first).outcome()).isEqualTo(new byte[] {1});
    IdempotencyRecord secondRecord = readLive(second);
    assertThat(secondRecord.status()).isEqualTo(RecordStatus.IN_PROGRESS);
    assertThat(secondRecord.ownerToken()).isEqualTo(owner2);
    RecordKey again = RecordKey.of(scope, prefix + "1").fittedTo(store.maxKeyLength());
    assertCompletedBy(
        store.claim(again, owner(), "fp1", LONG_LEASE).existing(), owner1, "the first long key");
  }

  @Test
  @DisplayName(
      "keys and scopes with lone surrogates or NUL stay distinct, and each completes and replays"
          + " its own")
  void illFormedAndNulKeysStayDistinct() {
    String longPrefix = "k".repeat(999);
    // a key that is the very text another (long, ill-formed) key is replaced by must not be that
    // key
    String lookalike =
        RecordKey.of(scope, longPrefix + "\uD800").fittedTo(store.maxKeyLength()).key();
    List<String> keys =
        List.of(
            "tx-\uD800",
            "tx-\uDBFF",
            "tx-\uDC00",
            "tx-?",
            "tx-\uD83D\uDE00",
            "tx-\uDE00\uD83D",
            "tx-\u0000",
            "tx-a\u0000b",
            "tx-ab",
            "tx-\u0001",
            "tx-\uFFFF",
            longPrefix + "\uD800",
            longPrefix + "\uDBFF",
            longPrefix + "?",
            lookalike);
    List<String> scopes = List.of(scope, scope + "\uD800", scope + "?", scope + "\u0000");
    Map<RecordKey, String> owners = new java.util.LinkedHashMap<>();
    Map<RecordKey, String> names = new java.util.LinkedHashMap<>();
    for (String s : scopes) {
      for (String k : keys) {
        RecordKey key = RecordKey.of(s, k).fittedTo(store.maxKeyLength());
        String name = "key " + printable(k) + " in scope " + printable(s);
        String owner = owner();
        ClaimResult result = store.claim(key, owner, null, LONG_LEASE);
        assertThat(result.isAcquired())
            .as("claim of %s (another key took its record?): %s", name, result)
            .isTrue();
        owners.put(key, owner);
        names.put(key, name);
      }
    }
    int i = 0;
    for (Map.Entry<RecordKey, String> e : owners.entrySet()) {
      assertThat(store.complete(e.getKey(), e.getValue(), outcomeOf(i++), LONG_TTL))
          .as("complete of %s", names.get(e.getKey()))
          .isTrue();
    }

    i = 0;
    for (String s : scopes) {
      for (String k : keys) {
        RecordKey again = RecordKey.of(s, k).fittedTo(store.maxKeyLength());
        IdempotencyRecord replay = store.claim(again, owner(), null, LONG_LEASE).existing();
        String name = "key " + printable(k) + " in scope " + printable(s);
        assertThat(replay).as("replay of %s", name).isNotNull();
        assertThat(replay.status()).as("replay of %s", name).isEqualTo(RecordStatus.COMPLETED);
        assertCompletedBy(replay, owners.get(again), "replay of " + name);
        assertThat(replay.outcome()).as("outcome replayed for %s", name).isEqualTo(outcomeOf(i++));
      }
    }
  }

  private static byte[] outcomeOf(int index) {
    return ("outcome-" + index).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A key for a message: control characters and surrogates as escapes, long keys shortened. */
  private static String printable(String text) {
    StringBuilder sb = new StringBuilder();
    for (char c : text.toCharArray()) {
      sb.append(
          c < 0x20 || Character.isSurrogate(c)
              ? String.format("\\u%04X", (int) c)
              : String.valueOf(c));
    }
    return sb.length() > 60
        ? sb.substring(0, 30) + "..." + sb.substring(sb.length() - 20)
        : sb.toString();
  }

  // ----------------------------------------------------------------------------------------------
  // waiting

  @Test
  @DisplayName("awaitChange returns soon after another thread completes the key")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void awaitChangeReturnsAfterComplete() throws Exception {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);
    awaitChangeWhile(
        key, () -> assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL)).isTrue());
  }

  @Test
  @DisplayName("awaitChange returns soon after another thread releases the key")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void awaitChangeReturnsAfterRelease() throws Exception {
    RecordKey key = newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);
    awaitChangeWhile(key, () -> assertThat(store.release(key, owner)).isTrue());
  }

  @Test
  @DisplayName("awaitChange returns soon after another thread deletes the key")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void awaitChangeReturnsAfterDelete() throws Exception {
    RecordKey key = newKey();
    store.claim(key, owner(), null, LONG_LEASE);
    awaitChangeWhile(key, () -> assertThat(store.delete(key)).isTrue());
  }

  @Test
  @DisplayName("awaitChange on a key nobody changes returns within its maxWait")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void awaitChangeIsBounded() throws InterruptedException {
    RecordKey key = newKey();
    store.claim(key, owner(), null, LONG_LEASE);
    Duration maxWait = Duration.ofMillis(300);

    long start = System.nanoTime();
    store.awaitChange(key, maxWait);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).as("awaitChange(%s) took", maxWait).isLessThan(maxWait.plus(WAIT_SLACK));
    assertThat(readLive(key).status())
        .as("a waiter never writes")
        .isEqualTo(RecordStatus.IN_PROGRESS);
  }

  private void awaitChangeWhile(RecordKey key, Runnable change) throws Exception {
    Duration maxWait = notifiesWaiters() ? NOTIFIED_MAX_WAIT : shortLease();
    AtomicLong tookNanos = new AtomicLong(-1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    Thread waiter =
        new Thread(
            () -> {
              started.countDown();
              long start = System.nanoTime();
              try {
                store.awaitChange(key, maxWait);
                tookNanos.set(System.nanoTime() - start);
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "tck-waiter");
    waiter.setDaemon(true);
    waiter.start();
    assertThat(started.await(5, TimeUnit.SECONDS)).as("waiter thread started").isTrue();
    waitUntilBlocked(waiter);

    change.run();

    waiter.join(maxWait.plus(WAIT_SLACK).toMillis() + 1000);
    assertThat(waiter.isAlive())
        .as("awaitChange still blocked after maxWait %s", maxWait)
        .isFalse();
    assertThat(failure.get()).as("awaitChange threw").isNull();
    Duration took = Duration.ofNanos(tookNanos.get());
    if (notifiesWaiters()) {
      assertThat(took)
          .as("awaitChange(maxWait %s) of a store that notifies waiters took", maxWait)
          .isLessThan(NOTIFIED_WITHIN);
    } else {
      assertThat(took)
          .as("awaitChange(maxWait %s) took", maxWait)
          .isLessThan(maxWait.plus(WAIT_SLACK));
    }
  }

  /** Gives the waiter a bounded moment to block, so that the change is made while it waits. */
  private static void waitUntilBlocked(Thread waiter) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() - deadline < 0) {
      Thread.State state = waiter.getState();
      if (state == Thread.State.WAITING
          || state == Thread.State.TIMED_WAITING
          || state == Thread.State.TERMINATED) {
        break;
      }
      Thread.sleep(5);
    }
    Thread.sleep(100);
  }

  // ----------------------------------------------------------------------------------------------
  // races

  @Test
  @DisplayName(
      "16 threads racing to claim 200 keys: exactly one acquires each key, the others see its"
          + " owner")
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void concurrentClaimsHaveOneWinnerPerKey() throws Exception {
    int threads = 16;
    int keyCount = 200;
    List<RecordKey> keys = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      keys.add(newKey());
    }
    Map<RecordKey, ConcurrentLinkedQueue<String>> winners = new ConcurrentHashMap<>();
    Map<RecordKey, ConcurrentLinkedQueue<String>> seen = new ConcurrentHashMap<>();
    for (RecordKey key : keys) {
      winners.put(key, new ConcurrentLinkedQueue<>());
      seen.put(key, new ConcurrentLinkedQueue<>());
    }
    CountDownLatch startGate = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  List<RecordKey> order = new ArrayList<>(keys);
                  Collections.shuffle(order, new Random(thread));
                  startGate.await();
                  for (RecordKey key : order) {
                    String owner = "t" + thread + "-" + UUID.randomUUID();
                    ClaimResult result = store.claim(key, owner, "fp", LONG_LEASE);
                    if (result.isAcquired()) {
                      winners.get(key).add(owner);
                    } else {
                      seen.get(key).add(result.existing().ownerToken());
                    }
                  }
                  return null;
                }));
      }
      startGate.countDown();
      for (Future<?> f : futures) {
        f.get(100, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    for (RecordKey key : keys) {
      List<String> won = new ArrayList<>(winners.get(key));
      assertThat(won).as("owners that acquired %s", key).hasSize(1);
      assertThat(seen.get(key))
          .as("owners the losers of %s saw", key)
          .hasSize(threads - 1)
          .containsOnly(won.get(0));
      assertThat(readLive(key).ownerToken()).isEqualTo(won.get(0));
    }
  }

  // ----------------------------------------------------------------------------------------------
  // helpers

  /**
   * The owner token of {@code record}: {@code owner}, or for a completed record {@code null} too (a
   * store may keep only a digest of the token once the record is completed; see {@link
   * IdempotencyRecord#ownerToken()}); a record in progress always carries its owner.
   */
  private static void assertCompletedBy(IdempotencyRecord record, String owner, String what) {
    if (record.isCompleted() && record.ownerToken() == null) {
      return;
    }
    assertThat(record.ownerToken()).as("owner of %s", what).isEqualTo(owner);
  }

  /** A fresh, unique owner token. */
  protected static String owner() {
    return "owner-" + UUID.randomUUID();
  }

  /** The live record of {@code key}, failing when there is none. */
  protected final IdempotencyRecord readLive(RecordKey key) {
    Optional<IdempotencyRecord> record = store.read(key);
    assertThat(record).as("record of %s", key).isPresent();
    return record.get();
  }

  private Duration pastShortLease() {
    return shortLease().plus(shortLease().dividedBy(2));
  }

  private static void assertExpiresWithin(IdempotencyRecord record, Duration limit) {
    assertThat(record.expiresIn())
        .as("expiresIn of %s", record)
        .isPositive()
        .isLessThanOrEqualTo(limit);
  }
}
