package dev.idempotent;

/**
 * Receives an {@link IdempotencyEvent} for every call, on the calling thread (or the thread that
 * completed an async result). Keep it fast; an exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface IdempotencyListener {
  void onEvent(IdempotencyEvent event);

  /** Does nothing. The default. */
  IdempotencyListener NO_OP = event -> {};
}
