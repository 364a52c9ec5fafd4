package dev.idempotent;

/** What a call gets when its key is held by a call that is still running. */
public enum OnInProgress {
  /** Throw {@link IdempotencyInProgressException} at once. */
  REJECT,
  /**
   * Block until the holder completes (then replay), releases (then claim and run), or the wait
   * timeout passes (then {@link IdempotencyInProgressException}). A waiter never touches the
   * holder's claim.
   */
  WAIT
}
