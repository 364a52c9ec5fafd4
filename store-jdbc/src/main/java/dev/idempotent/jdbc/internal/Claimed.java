package dev.idempotent.jdbc.internal;

/** What one claim statement did. */
public enum Claimed {
  /** Inserted a new claim, or replaced an expired completed record. */
  ACQUIRED,
  /** Replaced an in-progress claim whose lease had ended. */
  TOOK_OVER,
  /** Changed nothing: a live record holds the key. */
  LOST,
  /** The statement ran but the driver did not say whether it won; read the row to find out. */
  UNKNOWN,
  /**
   * The insert found the key taken and wrote nothing: read the record, and if it is no longer live take it
   * over with {@link DialectSql#claimExpired}.
   */
  EXISTS
}
