package dev.idempotent.messaging;

import java.util.List;

/**
 * What {@link MessageIdempotency#handleBatch} did with a batch: every message before {@link
 * #stopIndex()} was processed or replayed; from it on, nothing was handled, and the adapter hands
 * those messages back to the broker for later delivery.
 *
 * @param outcomes the outcome of each message before the stop index, in batch order
 * @param stopIndex the index of the first message not handled, or {@code -1} when every message was
 * @param stopCause why it was not: a {@link MessageInProgressException} (another delivery still
 *     runs it: hand the rest back), or a final failure ({@link
 *     MessageIdempotency#isRecordedFailure} is true for it): the recorded failure of an earlier
 *     delivery, replayed, or the {@link dev.idempotent.IdempotencyBlockedException} of a blocked
 *     key; {@code null} without a stop
 */
public record MessageBatchOutcome(
    List<MessageOutcome> outcomes, int stopIndex, Exception stopCause) {
  public MessageBatchOutcome {
    outcomes = List.copyOf(outcomes);
  }

  /** Whether every message of the batch was handled. */
  public boolean complete() {
    return stopIndex < 0;
  }
}
