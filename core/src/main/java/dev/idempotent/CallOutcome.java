package dev.idempotent;

/**
 * How one idempotent call ended, as an {@link IdempotencyObserver} sees it: exactly one per call.
 * The names, in lower case, are the {@code outcome} value of the {@code idempotent.call}
 * observation.
 */
public enum CallOutcome {
  /** The method ran and its result was recorded. */
  EXECUTED,
  /**
   * The method failed and its failure was recorded (a listed failure, or an unlisted one recorded
   * or blocked as {@link OnAmbiguousFailure} says): repeats get it.
   */
  RECORDED_FAILURE,
  /** The method failed with a failure that is not recorded: the key was released. */
  FAILED,
  /**
   * The method ran but its outcome was not recorded: the store refused it (the claim had been taken
   * over), failed, or the outcome could not be encoded. The caller got the method's result.
   */
  NOT_RECORDED,
  /** A repeat got the recorded outcome (a value or a failure); the method did not run. */
  REPLAYED,
  /** A repeat of a completed key was rejected ({@link OnDuplicate#REJECT}). */
  REJECTED_DUPLICATE,
  /** A repeat found the key in progress and was rejected (at once, or after waiting). */
  IN_PROGRESS,
  /** A repeat found the key blocked ({@link OnAmbiguousFailure#BLOCK}). */
  BLOCKED,
  /** A repeat carried a different payload than the recorded one. */
  PAYLOAD_MISMATCH,
  /** The work was cancelled before it ended (a Reactor subscriber, a coroutine). */
  CANCELLED,
  /** The store failed and the method ran unprotected ({@link StoreFailurePolicy#FAIL_OPEN}). */
  STORE_FAILURE_OPEN,
  /**
   * The store failed and the call failed without running ({@link StoreFailurePolicy#FAIL_CLOSED}).
   */
  STORE_FAILURE_CLOSED,
  /**
   * The library refused the call before the method ran for a reason of its own: a blank key, an
   * interrupted thread, a nested call re-entering its own key, a recorded outcome that cannot be
   * read back.
   */
  REFUSED;

  private final String tag = name().toLowerCase(java.util.Locale.ROOT);

  /** The name in lower case, as metrics and traces show it. */
  public String tag() {
    return tag;
  }
}
