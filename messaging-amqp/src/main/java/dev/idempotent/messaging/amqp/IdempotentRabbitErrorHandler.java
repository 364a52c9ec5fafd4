package dev.idempotent.messaging.amqp;

import dev.idempotent.messaging.MessageInProgressException;
import org.springframework.amqp.rabbit.listener.ConditionalRejectingErrorHandler;
import org.springframework.amqp.rabbit.listener.FatalExceptionStrategy;
import org.springframework.util.ErrorHandler;

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

  /**
   * The application's own error handler, with a message in progress handed back quietly (logged at
   * DEBUG, never passed to {@code delegate}, so never rejected); every other failure reaches {@code
   * delegate} unchanged. What a container keeps when it has an error handler of its own.
   */
  public static ErrorHandler around(ErrorHandler delegate) {
    return new Around(java.util.Objects.requireNonNull(delegate, "delegate"));
  }

  private static final class Around implements ErrorHandler {
    private static final org.slf4j.Logger LOG =
        org.slf4j.LoggerFactory.getLogger(IdempotentRabbitErrorHandler.class);
    private final ErrorHandler delegate;

    Around(ErrorHandler delegate) {
      this.delegate = delegate;
    }

    @Override
    public void handleError(Throwable t) {
      if (inProgress(t)) {
        LOG.debug("Message handed back to the broker: {}", causeMessage(t));
        return;
      }
      delegate.handleError(t);
    }

    @Override
    public String toString() {
      return "IdempotentRabbitErrorHandler.around(" + delegate + ")";
    }
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
