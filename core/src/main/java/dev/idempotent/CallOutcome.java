package dev.idempotent;

/**
 * How one idempotent call ended, as an {@link IdempotencyObserver} sees it: exactly one per call
 * that started (a blank key is refused before the start). The names, in lower case, are the {@code
 * outcome} value of the {@code idempotent.call} observation.
 */
public enum CallOutcome {
  /** The method ran and its value was recorded. */
  EXECUTED,
  /**
   * The method failed and its failure was recorded (a listed failure, or an unlisted one recorded
   * or blocked as {@link OnAmbiguousFailure} says): repeats get it.
   */
  RECORDED_FAILURE,
  /**
   * The method ran but its outcome was not recorded, and the key was released: it failed with a
   * failure that is not recorded, or its value could not be encoded or was over the size limit.
   */
  RELEASED,
  /** The method ran but this caller's claim was no longer held when it was to be recorded. */
  FENCED,
  /** The method ran but recording failed for good (or the call failed because it did). */
  NOT_RECORDED,
  /** A repeat got the recorded outcome (a value or a failure); the method did not run. */
  REPLAYED,
  /** A repeat of a completed key was rejected ({@link OnDuplicate#REJECT}). */
  REJECTED_DUPLICATE,
  /** A repeat found the key in progress (rejected at once, or after the wait timeout). */
  IN_PROGRESS,
  /**
   * A repeat found the key blocked after an ambiguous failure ({@link OnAmbiguousFailure#BLOCK}).
   */
  BLOCKED,
  /** A repeat carried a different payload than the recorded one. */
  PAYLOAD_MISMATCH,
  /** The recorded outcome could not be read back; the call failed without running the method. */
  UNREADABLE,
  /** The work was cancelled before it ended (a Reactor subscriber, a coroutine). */
  CANCELLED,
  /** The store failed and the method ran unprotected ({@link StoreFailurePolicy#FAIL_OPEN}). */
  STORE_FAILURE_OPEN,
  /**
   * The store failed and the call failed without running ({@link StoreFailurePolicy#FAIL_CLOSED}).
   */
  STORE_FAILURE_CLOSED,
  /**
   * The library refused the call before the method ran: re-entered on its own thread, the calling
   * thread interrupted, or the store's claim failed with one of the library's own exceptions.
   */
  REFUSED;

  private final String tag = name().toLowerCase(java.util.Locale.ROOT);

  /** The name in lower case, as metrics and traces show it. */
  public String tag() {
    return tag;
  }
}
