package dev.idempotent.spi;

/**
 * Thrown by {@link IdempotencyStore#complete} when the outcome was not recorded and trying again
 * would not help or must not happen. The executor never retries it; what it does instead is one of
 * two things, chosen by the store:
 *
 * <ul>
 *   <li>{@link #failingTheCall}: the caller gets {@code IdempotencyStoreException} with this as its
 *       cause, and the claim is left to end with its lease. For a completion that belongs to the
 *       caller's own transaction (it may be aborted, or its connection broken): recording it
 *       anywhere else would commit the record while the business work rolls back, and succeeding
 *       would commit the work without its record.
 *   <li>{@link #releasingTheKey}: the caller gets its result, the key is released and the failure
 *       is logged at ERROR; a repeat runs the method again. For an outcome the backend can never
 *       accept (larger than it takes): the message names the size and the setting to raise.
 *   <li>{@link #unconfirmed}: the outcome was written but its durability was not confirmed
 *       (replicas that did not acknowledge it in time); the caller gets {@code
 *       IdempotencyStoreException}, an ambiguous outcome, and the record stays.
 * </ul>
 *
 * The message must not contain the raw key (use {@link RecordKey#redactedKey()}); nor may the cause
 * chain.
 */
public final class OutcomeNotRecordedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean failsTheCall;
  private final boolean unconfirmed;

  private OutcomeNotRecordedException(
      String message, Throwable cause, boolean failsTheCall, boolean unconfirmed) {
    super(message, cause);
    this.failsTheCall = failsTheCall;
    this.unconfirmed = unconfirmed;
  }

  /** The call fails with {@code IdempotencyStoreException}; the claim ends with its lease. */
  public static OutcomeNotRecordedException failingTheCall(String message, Throwable cause) {
    return new OutcomeNotRecordedException(message, cause, true, false);
  }

  /** The caller gets its result; the key is released and the failure logged at ERROR. */
  public static OutcomeNotRecordedException releasingTheKey(String message, Throwable cause) {
    return new OutcomeNotRecordedException(message, cause, false, false);
  }

  /**
   * The outcome was written, but not as durably as the store was told to make sure of (replicas
   * that did not acknowledge it in time): the call fails with {@code IdempotencyStoreException}, an
   * ambiguous outcome for the caller, and the record stays as written.
   */
  public static OutcomeNotRecordedException unconfirmed(String message) {
    return new OutcomeNotRecordedException(message, null, true, true);
  }

  /** {@code true} for {@link #unconfirmed}: the outcome was written, its durability not shown. */
  public boolean isUnconfirmed() {
    return unconfirmed;
  }

  /** {@code true} when the call must fail; {@code false} when the key is released instead. */
  public boolean failsTheCall() {
    return failsTheCall;
  }
}
