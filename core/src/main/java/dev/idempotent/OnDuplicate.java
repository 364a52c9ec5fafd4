package dev.idempotent;

/** What a call gets when its key has already completed. */
public enum OnDuplicate {
  /** Return the recorded result, or rethrow the recorded failure. The method does not run. */
  REPLAY,
  /** Throw {@link DuplicateRequestException}. The method does not run. */
  REJECT
}
