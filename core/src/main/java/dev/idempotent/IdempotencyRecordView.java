package dev.idempotent;

import dev.idempotent.internal.OutcomeCodec;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.Objects;

/**
 * What an operator may see of one stored record, from {@link Idempotency#inspect}: its state, how
 * long it has left, what kind of outcome it holds and how large it is. Never the outcome itself,
 * the owner token, the fingerprint or the whole key: those may carry personal or secret data.
 *
 * @param store the name of the store, {@code ""} for the default store
 * @param scope the scope of the record
 * @param redactedKey the key as a short digest ({@link
 *     dev.idempotent.spi.RecordKey#redactedKey()}), the same as events and log lines show
 * @param status {@code IN_PROGRESS} (a call holds the key) or {@code COMPLETED} (its outcome is
 *     recorded)
 * @param expiresIn the rest of the lease while in progress, the rest of the ttl once completed, by
 *     the store's clock
 * @param outcome what the completed record replays; {@link Outcome#NONE} while in progress
 * @param outcomeSize the size of the stored outcome in bytes; 0 while in progress
 * @param fingerprinted whether the record keeps a payload fingerprint (repeats with another payload
 *     are refused)
 */
public record IdempotencyRecordView(
    String store,
    String scope,
    String redactedKey,
    RecordStatus status,
    Duration expiresIn,
    Outcome outcome,
    int outcomeSize,
    boolean fingerprinted) {

  /** What a record replays to a repeat. */
  public enum Outcome {
    /** Nothing yet: the record is in progress. */
    NONE,
    /** The method's return value (possibly {@code null}). */
    VALUE,
    /** A failure the method threw and the call recorded: repeats throw it again. */
    FAILURE
  }

  public IdempotencyRecordView {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(redactedKey, "redactedKey");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(expiresIn, "expiresIn");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** The view of {@code record}, held by {@code store}. */
  static IdempotencyRecordView of(String store, IdempotencyRecord record) {
    byte[] bytes = record.isCompleted() ? record.outcome() : null;
    Outcome outcome =
        bytes == null
            ? Outcome.NONE
            : OutcomeCodec.isFailure(bytes) ? Outcome.FAILURE : Outcome.VALUE;
    return new IdempotencyRecordView(
        store,
        record.key().scope(),
        record.key().redactedKey(),
        record.status(),
        record.expiresIn(),
        outcome,
        bytes == null ? 0 : bytes.length,
        record.fingerprint() != null);
  }
}
