package dev.idempotent;

import java.time.Duration;

/** Something that happened to one call, as an {@link IdempotencyListener} sees it. */
public final class IdempotencyEvent {

  /** The kinds of event. */
  public enum Type {
    /** The method ran and its result was recorded. */
    EXECUTED,
    /**
     * The method failed and its failure was recorded (a listed failure, or an unlisted one recorded
     * or blocked as {@link OnAmbiguousFailure} says).
     */
    RECORDED_FAILURE,
    /** A repeat got the recorded outcome; the method did not run. */
    REPLAYED,
    /** A repeat of a completed key was rejected ({@link OnDuplicate#REJECT}). */
    REJECTED_DUPLICATE,
    /** A repeat found the key in progress and was rejected (at once, or after waiting). */
    IN_PROGRESS,
    /** A repeat found the key blocked ({@link OnAmbiguousFailure#BLOCK}) and was refused. */
    BLOCKED,
    /** A repeat carried a different payload than the recorded one. */
    MISMATCH,
    /** A claim whose lease had ended was taken over by this call. */
    TAKEN_OVER,
    /**
     * The store refused this holder's complete, release or renew: its claim had been taken over.
     */
    FENCED,
    /** The store failed; the event's error says how. */
    STORE_ERROR,
    /** The store failed and the method ran unprotected ({@link StoreFailurePolicy#FAIL_OPEN}). */
    FAIL_OPEN,
    /**
     * Renewing a running call's lease failed (retried after a tenth of the lease); the error says
     * how.
     */
    RENEWAL_FAILED,
    /**
     * A running call's lease was not renewed for two thirds of it (its store is slow or failing):
     * another caller may take the key over before this call finishes.
     */
    RENEWAL_LATE,
    /**
     * A call held its claim for the max-hold ({@link IdempotencyConfig#maxHold()}): its lease is no
     * longer renewed and the claim ends with it, so a repeat after that runs the method again.
     */
    MAX_HOLD_REACHED,
    /**
     * An operator deleted the key's record with {@link Idempotency#delete} (not a call: the
     * duration is zero). A call still running under that claim is fenced, and the next call of the
     * key runs the method.
     */
    DELETED,
    /**
     * The work of a claimed key was cancelled before it ended (a Reactor subscriber cancelled, a
     * coroutine was cancelled): nothing was recorded, and the claim was released or left to end
     * with its lease ({@link OnCancel}).
     */
    CANCELLED,
    /**
     * A repeat's payload was not compared with the recorded one: the record's payload fingerprint
     * was made by another version of the fingerprint format (the record was written before an
     * upgrade that changed it), and fingerprints of different versions say nothing about each
     * other. The repeat went on as if the payloads matched (replayed, rejected or waited).
     */
    PAYLOAD_CHECK_SKIPPED
  }

  private final Type type;
  private final String scope;
  private final String redactedKey;
  private final Duration duration;
  private final Throwable error;

  public IdempotencyEvent(
      Type type, String scope, String redactedKey, Duration duration, Throwable error) {
    this.type = type;
    this.scope = scope;
    this.redactedKey = redactedKey;
    this.duration = duration;
    this.error = error;
  }

  public Type type() {
    return type;
  }

  public String scope() {
    return scope;
  }

  /** The key as a short digest; never the whole key. */
  public String redactedKey() {
    return redactedKey;
  }

  /** Time from the start of the call to this event. */
  public Duration duration() {
    return duration;
  }

  /**
   * The store error for {@link Type#STORE_ERROR}, {@link Type#FAIL_OPEN} and {@link
   * Type#RENEWAL_FAILED}, else {@code null}.
   */
  public Throwable error() {
    return error;
  }

  @Override
  public String toString() {
    return "IdempotencyEvent{"
        + type
        + " "
        + scope
        + " "
        + redactedKey
        + " "
        + duration.toMillis()
        + "ms"
        + (error == null ? "" : " " + error)
        + "}";
  }
}
