package dev.idempotent.messaging;

import java.util.List;

/** A batch consumer's work on the messages of one batch that are to run, in one call. */
@FunctionalInterface
public interface MessageBatchHandler {
  /**
   * Handles the messages at {@code indexes} of the batch (ascending), and only those.
   *
   * @throws Exception any failure; {@link MessageIdempotency#handleBatch} rethrows it unchanged
   */
  void handle(List<Integer> indexes) throws Exception;
}
