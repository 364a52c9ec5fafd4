package dev.idempotent.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where idempotency records live. A store does only what its backend must do atomically; the
 * protocol that uses these operations is written once, in the core (one decision on a claim's
 * answer, one settlement of a held claim, used by the blocking and the non-blocking driver alike),
 * and is the same for every store.
 *
 * <h2>The protocol</h2>
 *
 * For every call of an idempotent method the executor:
 *
 * <ol>
 *   <li>makes a fresh, unique <b>owner token</b> and calls {@link #claim} once. The store
 *       atomically, in one step and one round trip (never read-then-write), either
 *       <ul>
 *         <li>inserts {@code IN_PROGRESS(owner token, fingerprint)} that expires after {@code
 *             lease} when no record exists or the existing one has expired: {@link
 *             ClaimResult#acquired()};
 *         <li>replaces an {@code IN_PROGRESS} record whose lease has ended by the new claim
 *             (takeover; the old owner token is now fenced): {@link ClaimResult#tookOver()};
 *         <li>or writes nothing and returns the live record: {@link ClaimResult#existing}.
 *       </ul>
 *   <li>Acquired: runs the method. While it runs, one shared renewer extends the claim every third
 *       of the lease, so a long call keeps its claim and a dead holder's claim frees itself after
 *       the lease. The renewer gathers the claims of a store that are due into batches and calls
 *       {@link #renewAll} once per batch (see <i>Renewal</i> below).
 *   <li>Returned, or threw a failure the call records: {@link #complete} stores the encoded outcome
 *       as {@code COMPLETED}, expiring after {@code ttl}. Threw anything else: {@link #release}
 *       deletes the claim so that a retry can run.
 *   <li>Existing {@code COMPLETED}: replays the outcome (or rejects the duplicate). Existing {@code
 *       IN_PROGRESS}: rejects at once, or waits with {@link #awaitChange} and claims again. A
 *       waiter changes no record's state, owner, outcome or expiry; a store may mark a claim as
 *       waited for, so that only claims somebody waits for are announced when they change.
 * </ol>
 *
 * <p>Outside the protocol, an operator may {@link #delete} a record whatever its state and owner:
 * to delete a key whose holder is stuck, or to drop a completed outcome so that the next call runs
 * the method again. For a running holder it is as if its lease had ended: its {@link #complete},
 * {@link #release} and {@link #renew} are fenced from then on (they return {@code false}), and a
 * new claim acquires the key while the old call may still be running. Waiters claim again: a store
 * with notifications wakes them on a delete as it does on a release.
 *
 * <h2>Fencing</h2>
 *
 * {@link #complete}, {@link #release} and {@link #renew} apply only when the stored record is still
 * {@code IN_PROGRESS} under the given owner token; otherwise they change nothing and return {@code
 * false}. A holder whose lease ended and whose key was taken over can therefore never overwrite or
 * delete the new holder's record. Each is one atomic step (a conditional write, a script, {@code
 * ... WHERE owner = ?}). A store may answer {@code true} to an exact repeat, by the same owner, of
 * a complete or release it already applied (the Redis store does, because Redisson may send a
 * command again when its reply was lost); it never answers {@code true} to another owner, and a
 * repeat changes nothing.
 *
 * <h2>Renewal</h2>
 *
 * A process may hold thousands of claims in one store at once (long calls, slow consumers), and
 * every one must be renewed before its lease ends, or another caller takes its key over while the
 * holder still runs. So the renewer, once per JVM:
 *
 * <ul>
 *   <li>keeps, per store, the claims whose renewal is due (a third of the lease after the last one)
 *       ordered by deadline (the end of their lease), earliest first;
 *   <li>hands them to {@link #renewAll} (or {@link AsyncIdempotencyStore#renewAllAsync} when the
 *       store's non-blocking face is its own) in batches of up to a few hundred claims of one
 *       lease, with a bounded number of batches in flight per store; a batch that does not answer
 *       within a lease frees its place and its claims are retried in another batch, so a hung round
 *       trip holds back no other batch;
 *   <li>measures the store's renewal lag, how late its most overdue renewal is, and logs a WARN (at
 *       most every ten seconds per store) once a claim has gone half its lease unrenewed, well
 *       before any lease can end ({@code dev.idempotent.LeaseRenewals}).
 * </ul>
 *
 * {@link #renewAll} is {@link #renew} for every claim of the batch: each claim is owner-checked
 * (fenced) on its own, and the answer says per claim whether it was renewed or lost; a claim lost
 * (taken over, released, completed, deleted or expired) changes nothing and holds back none of the
 * others. A store makes the batch as few round trips as its backend allows (a pipeline of scripts,
 * one JDBC batch); the default renews the claims one by one. A failure of the batch as a whole is
 * thrown, and the renewer retries every claim of it.
 *
 * <p>A renewal does not wait for replicas (Redis {@code WAIT}), even in a store that waits after
 * every other write: it changes no owner and no outcome, only an expiry, and it is sent every third
 * of the lease. A renewal that a failover loses leaves the record with the expiry of the renewal
 * before it, at least two thirds of a lease after that lost one was sent, and the next renewal, a
 * third of a lease later, extends it again on the new primary. Waiting instead would make every
 * renewal as slow as the slowest replica, and a replica that does not answer would hold every
 * renewal for the {@code WAIT} timeout: the renewals would fall behind and the leases of running
 * calls would end, which is the loss the wait was meant to prevent.
 *
 * <h2>Time</h2>
 *
 * Leases and ttls are relative durations; a store measures them with its own clock (the Redis
 * server, the database's {@code now()}, an injected ticker), so clocks of different hosts are never
 * compared. An expired record behaves exactly like a missing one, whether or not it is physically
 * deleted yet.
 *
 * <p>One exception: a backend with no clock of its own to offer conditions (DynamoDB) has each
 * caller write and judge expiry by its own clock. Such a store states the clock skew it tolerates
 * and takes a claim over only once its lease ended at least that long ago on the claimant's clock,
 * so no lease ends early while the hosts' clocks stay within it; its documentation says what a
 * larger skew does.
 *
 * <h2>Errors</h2>
 *
 * A backend failure or timeout is thrown as any {@link RuntimeException} (the executor turns it
 * into {@code IdempotencyStoreException} and applies the store-failure policy). Every operation
 * must return or fail within the store's configured timeouts: a store outage must never hang a
 * caller. A failed {@link #complete} is retried in the background until the lease would end, unless
 * the store throws {@link OutcomeNotRecordedException}: then it is never retried, and either the
 * call fails (a completion that belongs to the caller's transaction) or the key is released (an
 * outcome the backend can never accept). Messages and causes never carry a raw key or another bound
 * value: use {@link RecordKey#redactedKey()}.
 *
 * <h2>Keys and outcomes</h2>
 *
 * The executor passes keys already {@link RecordKey#fittedTo fitted} to {@link #maxKeyLength()}, so
 * the scope and the key reach a store each as well-formed UTF-16 text without NUL characters (a
 * part that is not, or is too long, arrives as its digest; see {@link RecordKey#fittedTo}).
 * Outcomes are opaque bytes of any length up to at least 1 MiB (unless the backend caps a record
 * below that, as DynamoDB's 400 KB item does: a larger outcome is then refused with {@link
 * OutcomeNotRecordedException#releasingTheKey}, naming the limit), stored binary-safe; fingerprints
 * are short ASCII strings or {@code null}. Implementations must be thread-safe. The contract kit in
 * {@code idempotent-store-tck} checks all of the above; every store passes it.
 */
public interface IdempotencyStore extends AutoCloseable {

  /**
   * Claims {@code key} for {@code ownerToken}, or returns the live record that holds it.
   *
   * @param key the record key, fitted to {@link #maxKeyLength()}
   * @param ownerToken unique per call; written into the record
   * @param fingerprint the payload fingerprint kept with the record, or {@code null}
   * @param lease how long the claim holds without renewal; positive
   */
  ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease);

  /**
   * Records the outcome: {@code IN_PROGRESS(ownerToken)} becomes {@code COMPLETED(outcome)},
   * expiring after {@code ttl}. Returns {@code false} and changes nothing when the record is not
   * {@code IN_PROGRESS} under {@code ownerToken} (fenced).
   */
  boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl);

  /**
   * Deletes the claim so that the key is free again. Returns {@code false} and changes nothing when
   * the record is not {@code IN_PROGRESS} under {@code ownerToken} (fenced).
   */
  boolean release(RecordKey key, String ownerToken);

  /**
   * Extends the claim to end {@code lease} from now. Returns {@code false} and changes nothing when
   * the record is not {@code IN_PROGRESS} under {@code ownerToken} (fenced, or already expired).
   */
  boolean renew(RecordKey key, String ownerToken, Duration lease);

  /**
   * Renews every claim of {@code claims} to end {@code lease} from now, in as few round trips as
   * the backend allows: element {@code i} of the answer is what {@link #renew} would have answered
   * for {@code claims.get(i)}, {@code true} renewed, {@code false} lost (fenced, or already
   * expired) with nothing changed. Each claim is owner-checked on its own, atomically; a lost claim
   * holds back none of the others. The batch need not be atomic as a whole. Thrown: a failure of
   * the batch (the backend is slow or down); then the renewer retries every claim of it, so a
   * renewal applied before the failure is simply applied again.
   *
   * <p>The default calls {@link #renew} for each claim in turn. Stores override it with one round
   * trip per batch: the Redis store pipelines one script per claim, the JDBC store sends one JDBC
   * batch.
   *
   * @param claims at least one claim, keys fitted to {@link #maxKeyLength()}, no key twice
   * @param lease how long each renewed claim holds from now; positive
   * @return one answer per claim, in the order of {@code claims}
   */
  default boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    boolean[] renewed = new boolean[claims.size()];
    for (int i = 0; i < renewed.length; i++) {
      HeldClaim c = claims.get(i);
      renewed[i] = renew(c.key(), c.ownerToken(), lease);
    }
    return renewed;
  }

  /**
   * Deletes the record for {@code key} whatever its state ({@code IN_PROGRESS} or {@code
   * COMPLETED}) and owner: an administrative operation, not part of the call protocol, and not
   * owner-checked. Returns whether a live record was there; a missing or expired key changes
   * nothing and returns {@code false}. One atomic step, like {@link #release}: a holder of a
   * deleted claim is fenced from then on (its {@link #complete}, {@link #release} and {@link
   * #renew} return {@code false}), the next {@link #claim} acquires the key, and a store whose
   * {@link #awaitChange} is notified wakes the key's waiters as a release does. Other keys, in this
   * and other scopes, are left alone.
   *
   * @param key the record key, fitted to {@link #maxKeyLength()}
   */
  boolean delete(RecordKey key);

  /**
   * The live record for {@code key}, or empty when there is none or it has expired. Never writes.
   */
  Optional<IdempotencyRecord> read(RecordKey key);

  /**
   * Blocks until the record for {@code key} may have changed (completed, released, expired) or
   * {@code maxWait} has passed, whichever comes first; a spurious early return is allowed. The
   * executor calls it between claims while a caller waits for an in-progress key, with a bounded,
   * growing {@code maxWait}.
   *
   * <p>The default sleeps {@code maxWait} (polling). Stores with notifications (in-process signals,
   * Redis pub/sub, PostgreSQL LISTEN) return as soon as the holder completes or releases.
   */
  default void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
    long nanos = maxWait.toNanos();
    if (nanos > 0) {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }
  }

  /** The longest scope or key, in characters, this store indexes; longer ones arrive digested. */
  default int maxKeyLength() {
    return Integer.MAX_VALUE;
  }

  /** Releases the store's own resources (not those the user handed to it). */
  @Override
  default void close() {}
}
