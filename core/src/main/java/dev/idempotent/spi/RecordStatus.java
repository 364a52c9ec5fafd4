package dev.idempotent.spi;

/** The two states a stored record can be in. A key with no record is free. */
public enum RecordStatus {
  /** Claimed by a running call that holds the owner token; expires when its lease ends. */
  IN_PROGRESS,
  /** The call finished and its outcome is recorded; expires when its ttl ends. */
  COMPLETED
}
