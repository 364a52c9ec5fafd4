package dev.idempotent.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One test of the kit: the store under test, the test's own random scope and the store's clock.
 * {@link IdempotencyStoreContract} makes one before each test, the only place where the kit obtains
 * the store it exercises, and every group of checks reads it through {@link
 * IdempotencyStoreContract#fixture()}.
 */
public final class ContractFixture {
  /** Lease of claims that must not expire during a test. */
  static final Duration LONG_LEASE = Duration.ofSeconds(60);

  /** Ttl of completed records that must not expire during a test. */
  static final Duration LONG_TTL = Duration.ofMinutes(10);

  /** The outcome size every store records unless its backend caps a record below it. */
  static final int MIB = 1024 * 1024;

  static final Duration NOTIFIED_MAX_WAIT = Duration.ofSeconds(5);
  static final Duration NOTIFIED_WITHIN = Duration.ofMillis(2500);
  static final Duration WAIT_SLACK = Duration.ofSeconds(2);

  private final IdempotencyStoreContract kit;
  private final IdempotencyStore store;
  private final String scope;
  private final AtomicInteger keyCounter = new AtomicInteger();

  ContractFixture(IdempotencyStoreContract kit, String scope, IdempotencyStore store) {
    this.kit = kit;
    this.scope = scope;
    this.store = store;
  }

  /** The store under test. */
  public IdempotencyStore store() {
    return store;
  }

  /** This test's random scope ({@code tck-} and a UUID). */
  public String scope() {
    return scope;
  }

  /** A fresh key in this test's scope, fitted to the store's key length. */
  public RecordKey newKey() {
    return RecordKey.of(scope, "key-" + keyCounter.incrementAndGet())
        .fittedTo(store.maxKeyLength());
  }

  /** The live record of {@code key}, failing when there is none. */
  public IdempotencyRecord readLive(RecordKey key) {
    Optional<IdempotencyRecord> record = store.read(key);
    assertThat(record).as("record of %s", key).isPresent();
    return record.get();
  }

  /** Lets {@code duration} pass on the store's clock ({@link IdempotencyStoreContract#elapse}). */
  public void elapse(Duration duration) throws InterruptedException {
    kit.elapse(duration);
  }

  /**
   * The lease and ttl that expiry tests let run out ({@link IdempotencyStoreContract#shortLease}).
   */
  public Duration shortLease() {
    return kit.shortLease();
  }

  /**
   * Half as long again as {@link #shortLease()}: a short lease or ttl has surely ended after it.
   */
  public Duration pastShortLease() {
    return shortLease().plus(shortLease().dividedBy(2));
  }

  /** The largest outcome the store records ({@link IdempotencyStoreContract#largestOutcome}). */
  public int largestOutcome() {
    return Math.min(kit.largestOutcome(), MIB);
  }

  /** Whether the store wakes waiters at once ({@link IdempotencyStoreContract#notifiesWaiters}). */
  public boolean notifiesWaiters() {
    return kit.notifiesWaiters();
  }

  /** A fresh, unique owner token. */
  public static String owner() {
    return "owner-" + UUID.randomUUID();
  }

  /**
   * The owner token of {@code record}: {@code owner}, or for a completed record {@code null} too (a
   * store may keep only a digest of the token once the record is completed; see {@link
   * IdempotencyRecord#ownerToken()}); a record in progress always carries its owner.
   */
  static void assertCompletedBy(IdempotencyRecord record, String owner, String what) {
    if (record.isCompleted() && record.ownerToken() == null) {
      return;
    }
    assertThat(record.ownerToken()).as("owner of %s", what).isEqualTo(owner);
  }

  static void assertExpiresWithin(IdempotencyRecord record, Duration limit) {
    assertThat(record.expiresIn())
        .as("expiresIn of %s", record)
        .isPositive()
        .isLessThanOrEqualTo(limit);
  }
}
