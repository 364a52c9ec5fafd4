package dev.idempotent;

/** What a call does when the store fails or times out before the method ran. */
public enum StoreFailurePolicy {
  /**
   * The method does not run; the caller gets {@link IdempotencyStoreException} (HTTP 503). The
   * default.
   */
  FAIL_CLOSED,
  /**
   * The method runs unprotected; a warning is logged and a {@link IdempotencyEvent.Type#FAIL_OPEN}
   * event emitted.
   */
  FAIL_OPEN
}
