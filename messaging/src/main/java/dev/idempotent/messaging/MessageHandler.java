package dev.idempotent.messaging;

/** The consumer's work on one message, run at most once per key. */
@FunctionalInterface
public interface MessageHandler {
  /**
   * Handles the message.
   *
   * @throws Exception any failure; {@link MessageIdempotency#handle} rethrows it unchanged
   */
  void handle() throws Exception;
}
