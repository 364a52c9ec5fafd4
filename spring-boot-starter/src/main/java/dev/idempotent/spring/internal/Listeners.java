package dev.idempotent.spring.internal;

import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyListener;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every listener bean (and the Micrometer one) hears every event; one that throws does not silence
 * the others.
 */
public final class Listeners implements IdempotencyListener {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.spring");
  private final List<IdempotencyListener> listeners;

  private Listeners(List<IdempotencyListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  /**
   * One listener for {@code listeners}: {@link IdempotencyListener#NO_OP}, the only one, or all in
   * order.
   */
  public static IdempotencyListener of(List<IdempotencyListener> listeners) {
    if (listeners.isEmpty()) {
      return IdempotencyListener.NO_OP;
    }
    return listeners.size() == 1 ? listeners.get(0) : new Listeners(listeners);
  }

  @Override
  public void onEvent(IdempotencyEvent event) {
    for (IdempotencyListener l : listeners) {
      try {
        l.onEvent(event);
      } catch (RuntimeException e) {
        LOG.warn("idempotency listener {} failed: {}", l, e.toString());
      }
    }
  }
}
