package dev.idempotent.messaging.amqp;

import dev.idempotent.messaging.MessageInProgressException;
import org.springframework.amqp.rabbit.listener.ConditionalRejectingErrorHandler;
import org.springframework.amqp.rabbit.listener.FatalExceptionStrategy;

/**
 * The container's {@link ConditionalRejectingErrorHandler} for listeners under {@link
 * IdempotentRabbitListenerAdvice}: a message handed back because another delivery of it is still in
 * progress ({@link MessageInProgressException} in the cause chain) is logged at DEBUG, not WARN,
 * and is never fatal (so it is requeued, not dead-lettered); every other failure is handled exactly
 * as by {@link ConditionalRejectingErrorHandler}.
 */
public class IdempotentRabbitErrorHandler extends ConditionalRejectingErrorHandler {
  /** With the default fatal-exception strategy. */
  public IdempotentRabbitErrorHandler() {
    super();
  }

  /** With the given strategy for every failure but a message in progress. */
  public IdempotentRabbitErrorHandler(FatalExceptionStrategy exceptionStrategy) {
    super(t -> !inProgress(t) && exceptionStrategy.isFatal(t));
  }

  @Override
  protected void log(Throwable t) {
    if (inProgress(t)) {
      if (logger.isDebugEnabled()) {
        logger.debug("Message handed back to the broker: " + causeMessage(t));
      }
      return;
    }
    super.log(t);
  }

  /** Whether {@code t} is a message handed back because it is in progress elsewhere. */
  public static boolean inProgress(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof MessageInProgressException) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }

  private static String causeMessage(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof MessageInProgressException) {
        return c.getMessage();
      }
    }
    return String.valueOf(t);
  }
}
