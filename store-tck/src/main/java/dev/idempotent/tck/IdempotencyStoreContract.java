package dev.idempotent.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract every {@link IdempotencyStore} passes: claim, complete, release, renew (one claim
 * and a batch) and read with their fencing rules, the administrative delete, lease and ttl expiry,
 * binary-safe outcomes, unicode, long and ill-formed keys (fitted as the executor fits them),
 * change notification and claim races. It checks the protocol written in the javadoc of {@link
 * IdempotencyStore}.
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
 *
 * <h2>Layout</h2>
 *
 * The checks come in groups, one interface each, whose default methods are the tests: claim,
 * release and fencing ({@code ClaimContract}); completion, replay and read ({@code
 * CompletionContract}); expiry and time ({@code ExpiryContract}); batch renewal ({@code
 * RenewalContract}); the administrative delete ({@code DeleteContract}); hostile keys and scopes
 * ({@code HostileInputContract}); waiting ({@code WaitingContract}); and claim races ({@code
 * ConcurrencyContract}). This class implements them all and gives each the running test's {@link
 * ContractFixture}, which {@link #openStore} makes before each test: the one place where the kit
 * obtains the store it exercises.
 */
public abstract class IdempotencyStoreContract
    implements ClaimContract,
        CompletionContract,
        ExpiryContract,
        RenewalContract,
        DeleteContract,
        HostileInputContract,
        WaitingContract,
        ConcurrencyContract {

  private ContractFixture fixture;

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

  /**
   * The largest outcome the store records, in bytes: 1 MiB by default, what the store SPI asks of
   * every store. A store whose backend caps one record below that (DynamoDB: 400 KB an item)
   * returns the largest it takes; the kit then round-trips an outcome of that size instead, and
   * checks that a 1 MiB outcome is refused as the SPI defines for an outcome the backend can never
   * accept ({@link dev.idempotent.spi.OutcomeNotRecordedException#releasingTheKey}), the claim left
   * as it was.
   */
  protected int largestOutcome() {
    return ContractFixture.MIB;
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

  /** The running test's store, scope and clock, as every group of checks reads them. */
  @Override
  public final ContractFixture fixture() {
    if (fixture == null) {
      throw new IllegalStateException(
          "no test of the kit is running: the fixture exists from its @BeforeEach to its"
              + " @AfterEach");
    }
    return fixture;
  }

  /** The store under test, for checks added by a subclass. */
  protected final IdempotencyStore store() {
    return fixture().store();
  }

  /** A fresh key in this test's scope, fitted to the store's key length. */
  protected final RecordKey newKey() {
    return fixture().newKey();
  }

  /** This test's random scope. */
  protected final String scope() {
    return fixture().scope();
  }

  /** A fresh, unique owner token. */
  protected static String owner() {
    return ContractFixture.owner();
  }

  /** The live record of {@code key}, failing when there is none. */
  protected final IdempotencyRecord readLive(RecordKey key) {
    return fixture().readLive(key);
  }

  /**
   * The store the checks exercise, made from the one {@link #createStore()} gave: itself, or its
   * non-blocking face in {@link AsyncIdempotencyStoreContract}.
   */
  IdempotencyStore exercised(IdempotencyStore created) {
    return created;
  }

  @BeforeEach
  final void openStore() {
    String scope = "tck-" + UUID.randomUUID();
    IdempotencyStore store = createStore();
    assertThat(store).as("createStore()").isNotNull();
    fixture = new ContractFixture(this, scope, exercised(store));
  }

  @AfterEach
  final void shutStore() {
    if (fixture != null) {
      IdempotencyStore store = fixture.store();
      fixture = null;
      closeStore(store);
    }
  }
}
