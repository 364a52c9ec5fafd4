package dev.idempotent;

/**
 * What happens to a claim when the work it protects is cancelled before it ends: a Reactor
 * subscriber cancels ({@code timeout()}, {@code take(n)}, a client that disconnects from a WebFlux
 * endpoint), a Kotlin coroutine is cancelled. A cancellation is an ambiguous ending: the work may
 * already have had its effect, and nothing was recorded.
 */
public enum OnCancel {
  /**
   * Leave the claim to end with its lease (the default): renewal stops, and until the lease ends a
   * retry gets the in-progress answer (or, with {@link OnInProgress#WAIT}, waits) instead of
   * running the work a second time at once. After the lease the key is free and a retry runs. The
   * safer choice when the work has effects: a caller that cancels and retries at once (a {@code
   * timeout()} followed by {@code retry()}) would otherwise start the same payment twice.
   */
  KEEP,
  /**
   * Release the claim at once, so that a retry runs the work again immediately. For work that has
   * no effect until it completes, or whose effect is idempotent anyway.
   */
  RELEASE
}
