package dev.idempotent.messaging;

/** What {@link MessageIdempotency#handle} did with one delivery of a message. */
public enum MessageOutcome {
  /** The handler ran and its outcome is recorded: acknowledge the message. */
  PROCESSED,
  /**
   * The key has a recorded outcome (an earlier delivery ran the handler): the handler did not run;
   * acknowledge the message.
   */
  REPLAYED,
  /**
   * Another delivery of the same key is still running, and did not finish within the wait bound:
   * the handler did not run; hand the message back to the broker for a later delivery (not an
   * error, not a dead letter).
   */
  IN_PROGRESS
}
