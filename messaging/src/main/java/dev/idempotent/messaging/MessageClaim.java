package dev.idempotent.messaging;

import dev.idempotent.IdempotencyClaim;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One delivery's claim on its key, settled by the adapter when the broker learns the delivery's
 * fate (an acknowledgement, a negative acknowledgement, a closed channel), from {@link
 * MessageIdempotency#claim}. Only the first settlement counts; later ones do nothing.
 */
public final class MessageClaim {
  private final IdempotencyClaim claim;
  private final MessageOutcome outcome;
  private final MessageIdempotency idempotency;
  private final AtomicBoolean settled;

  MessageClaim(IdempotencyClaim claim, MessageOutcome outcome, MessageIdempotency idempotency) {
    this.claim = claim;
    this.outcome = outcome;
    this.idempotency = idempotency;
    this.settled = new AtomicBoolean(claim == null);
  }

  /** Whether the caller runs the work and then settles this claim. */
  public boolean runs() {
    return claim != null;
  }

  /**
   * {@link MessageOutcome#PROCESSED} when the caller runs the work ({@link #runs()}); else {@link
   * MessageOutcome#REPLAYED} (acknowledge the message) or {@link MessageOutcome#IN_PROGRESS} (hand
   * it back to the broker).
   */
  public MessageOutcome outcome() {
    return outcome;
  }

  /** Whether the claim is settled (or there was nothing to settle). */
  public boolean settled() {
    return settled.get();
  }

  /**
   * The message was processed: records its outcome, before the adapter acknowledges it.
   *
   * @throws Exception the store's failure when the outcome could not be recorded (then do not
   *     acknowledge)
   */
  public void complete() throws Exception {
    if (settled.compareAndSet(false, true)) {
      MessageIdempotency.awaitStage(claim.complete(null));
    }
  }

  /**
   * The work failed with {@code failure}: settled as the settings say (recorded when it or one of
   * its causes is a recorded failure, else released by default).
   *
   * @return what to rethrow: {@code failure}, or the store's exception when the store must fail
   */
  public Exception fail(Exception failure) throws Exception {
    if (settled.compareAndSet(false, true)) {
      return idempotency.settleFailure(claim, failure);
    }
    return failure;
  }

  /**
   * The message was not processed (handed back, rejected, its channel closed): releases the key.
   */
  public void release() throws Exception {
    if (settled.compareAndSet(false, true)) {
      MessageIdempotency.awaitStage(claim.release());
    }
  }
}
