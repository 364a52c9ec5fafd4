package dev.idempotent.tck;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.HeldClaim;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.OutcomeNotRecordedException;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The simplest store that follows the protocol: one monitor around a hash map, on a fake clock. The
 * kit's own tests run the contract against it (it must pass) and against broken variants of it
 * (they must fail).
 */
class ReferenceStore implements IdempotencyStore {
  /** What a broken variant gets wrong. */
  enum Flaw {
    NONE,
    NO_FENCING,
    CLAIM_OVERWRITES,
    IGNORES_EXPIRY,
    SHARES_OUTCOME_ARRAY,
    FORGETS_FINGERPRINT,
    /**
     * Holds scopes and keys as their UTF-8 bytes and refuses NUL, as Redis, PostgreSQL and MariaDB
     * do: harmless, because the keys that reach a store are fitted (lone surrogates and NUL would
     * otherwise be merged or refused).
     */
    KEYS_AS_UTF8,
    /**
     * Holds scopes and keys in ISO-8859-1: every character it lacks becomes {@code ?}, merging
     * keys.
     */
    KEYS_AS_LATIN1,
    /** Deletes only completed records: a stuck claim cannot be deleted. */
    DELETE_ONLY_COMPLETED,
    /** Deletes the key in every scope. */
    DELETE_IGNORES_SCOPE,
    /** Remembers the owner of a deleted claim and lets it complete the free key afterwards. */
    DELETE_LEAVES_OWNER,
    /** Deletes without waking the key's waiters. */
    DELETE_WITHOUT_NOTIFY,
    /** Renews a batch without checking owners: any live record is extended. */
    RENEW_ALL_UNFENCED,
    /** Renews a batch of claims whose leases ended, bringing them back. */
    RENEW_ALL_REVIVES_EXPIRED,
    /** Answers a batch with the renewed claims first, not in the order asked. */
    RENEW_ALL_OUT_OF_ORDER,
    /**
     * Takes outcomes up to {@link #OUTCOME_CAP} bytes and refuses a larger one by releasing the
     * key, the claim left as it was: what a backend with a small item limit does, and correct.
     */
    OUTCOME_CAP,
    /** {@link #OUTCOME_CAP}, but a larger outcome fails the call instead of releasing the key. */
    OUTCOME_CAP_FAILING_THE_CALL,
    /** {@link #OUTCOME_CAP}, but a larger outcome drops the claim before the refusal. */
    OUTCOME_CAP_DROPPING_THE_CLAIM;

    /** Whether this variant caps outcomes at {@link ReferenceStore#OUTCOME_CAP}. */
    boolean capsOutcomes() {
      return name().startsWith("OUTCOME_CAP");
    }
  }

  /** The largest outcome of the variants that cap outcomes. */
  static final int OUTCOME_CAP = 64 * 1024;

  private record Entry(
      RecordStatus status, String owner, String fingerprint, byte[] outcome, long deadline) {}

  final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final Map<RecordKey, Entry> entries = new HashMap<>();

  /** {@link Flaw#DELETE_LEAVES_OWNER}: the owners of deleted claims. */
  private final Map<RecordKey, String> deletedOwners = new HashMap<>();

  private final Flaw flaw;

  ReferenceStore(Flaw flaw) {
    this.flaw = flaw;
  }

  /** The key as the backend holds it. */
  private RecordKey stored(RecordKey key) {
    return switch (flaw) {
      case KEYS_AS_UTF8 -> RecordKey.of(utf8(key.scope()), utf8(key.key()));
      case KEYS_AS_LATIN1 -> RecordKey.of(latin1(key.scope()), latin1(key.key()));
      default -> key;
    };
  }

  private static String utf8(String text) {
    if (text.indexOf('\u0000') >= 0) {
      throw new IllegalArgumentException("invalid byte sequence for encoding \"UTF8\": 0x00");
    }
    return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  private static String latin1(String text) {
    return new String(text.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1);
  }

  private synchronized Entry live(RecordKey key) {
    Entry e = entries.get(stored(key));
    if (e != null && flaw != Flaw.IGNORES_EXPIRY && clock.get() - e.deadline >= 0) {
      return null;
    }
    return e;
  }

  private long deadline(Duration d) {
    return clock.get() + d.toNanos();
  }

  private IdempotencyRecord toRecord(RecordKey key, Entry e) {
    Duration left = Duration.ofNanos(Math.max(1, e.deadline - clock.get()));
    return e.status == RecordStatus.COMPLETED
        ? IdempotencyRecord.completed(key, e.owner, e.fingerprint, e.outcome.clone(), left)
        : IdempotencyRecord.inProgress(key, e.owner, e.fingerprint, left);
  }

  @Override
  public synchronized ClaimResult claim(
      RecordKey key, String ownerToken, String fingerprint, Duration lease) {
    Entry live = live(key);
    if (live != null && flaw != Flaw.CLAIM_OVERWRITES) {
      return ClaimResult.existing(toRecord(key, live));
    }
    Entry old =
        entries.put(
            stored(key),
            new Entry(
                RecordStatus.IN_PROGRESS,
                ownerToken,
                flaw == Flaw.FORGETS_FINGERPRINT ? null : fingerprint,
                null,
                deadline(lease)));
    return old != null && old.status == RecordStatus.IN_PROGRESS
        ? ClaimResult.tookOver()
        : ClaimResult.acquired();
  }

  private boolean holds(RecordKey key, String ownerToken) {
    Entry live = live(key);
    return flaw == Flaw.NO_FENCING
        ? live != null
        : live != null && live.status == RecordStatus.IN_PROGRESS && live.owner.equals(ownerToken);
  }

  @Override
  public synchronized boolean complete(
      RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
    if (live(key) == null && ownerToken.equals(deletedOwners.get(stored(key)))) {
      entries.put(
          stored(key),
          new Entry(RecordStatus.COMPLETED, ownerToken, null, outcome.clone(), deadline(ttl)));
      return true;
    }
    if (!holds(key, ownerToken)) {
      return false;
    }
    if (flaw.capsOutcomes() && outcome.length > OUTCOME_CAP) {
      String message = "the outcome of " + key + " is larger than " + OUTCOME_CAP + " bytes";
      if (flaw == Flaw.OUTCOME_CAP_DROPPING_THE_CLAIM) {
        entries.remove(stored(key));
      }
      throw flaw == Flaw.OUTCOME_CAP_FAILING_THE_CALL
          ? OutcomeNotRecordedException.failingTheCall(message, null)
          : OutcomeNotRecordedException.releasingTheKey(message, null);
    }
    Entry e = entries.get(stored(key));
    byte[] kept = flaw == Flaw.SHARES_OUTCOME_ARRAY ? outcome : outcome.clone();
    entries.put(
        stored(key),
        new Entry(RecordStatus.COMPLETED, ownerToken, e.fingerprint, kept, deadline(ttl)));
    notifyAll();
    return true;
  }

  @Override
  public synchronized boolean release(RecordKey key, String ownerToken) {
    if (!holds(key, ownerToken)) {
      return false;
    }
    entries.remove(stored(key));
    notifyAll();
    return true;
  }

  @Override
  public synchronized boolean renew(RecordKey key, String ownerToken, Duration lease) {
    if (!holds(key, ownerToken)) {
      return false;
    }
    Entry e = entries.get(stored(key));
    entries.put(
        stored(key), new Entry(e.status, e.owner, e.fingerprint, e.outcome, deadline(lease)));
    return true;
  }

  @Override
  public synchronized boolean[] renewAll(List<HeldClaim> claims, Duration lease) {
    boolean[] renewed = new boolean[claims.size()];
    int trues = 0;
    for (int i = 0; i < renewed.length; i++) {
      HeldClaim c = claims.get(i);
      Entry e = entries.get(stored(c.key()));
      if (flaw == Flaw.RENEW_ALL_UNFENCED && live(c.key()) != null) {
        entries.put(
            stored(c.key()),
            new Entry(e.status, e.owner, e.fingerprint, e.outcome, deadline(lease)));
        renewed[i] = true;
      } else if (flaw == Flaw.RENEW_ALL_REVIVES_EXPIRED
          && e != null
          && e.status == RecordStatus.IN_PROGRESS
          && c.ownerToken().equals(e.owner)) {
        entries.put(
            stored(c.key()),
            new Entry(e.status, e.owner, e.fingerprint, e.outcome, deadline(lease)));
        renewed[i] = true;
      } else {
        renewed[i] = renew(c.key(), c.ownerToken(), lease);
      }
      trues += renewed[i] ? 1 : 0;
    }
    if (flaw == Flaw.RENEW_ALL_OUT_OF_ORDER) {
      for (int i = 0; i < renewed.length; i++) {
        renewed[i] = i < trues;
      }
    }
    return renewed;
  }

  @Override
  public synchronized boolean delete(RecordKey key) {
    if (flaw == Flaw.DELETE_IGNORES_SCOPE) {
      return entries.keySet().removeIf(k -> k.key().equals(stored(key).key()) && live(k) != null);
    }
    Entry live = live(key);
    if (live == null
        || (flaw == Flaw.DELETE_ONLY_COMPLETED && live.status != RecordStatus.COMPLETED)) {
      return false;
    }
    entries.remove(stored(key));
    if (flaw == Flaw.DELETE_LEAVES_OWNER && live.status == RecordStatus.IN_PROGRESS) {
      deletedOwners.put(stored(key), live.owner);
    }
    if (flaw != Flaw.DELETE_WITHOUT_NOTIFY) {
      notifyAll();
    }
    return true;
  }

  @Override
  public synchronized Optional<IdempotencyRecord> read(RecordKey key) {
    return Optional.ofNullable(live(key)).map(e -> toRecord(key, e));
  }

  @Override
  public synchronized void awaitChange(RecordKey key, Duration maxWait)
      throws InterruptedException {
    Entry before = live(key);
    if (before == null || before.status == RecordStatus.COMPLETED) {
      return;
    }
    wait(Math.max(1, maxWait.toMillis()));
  }
}
