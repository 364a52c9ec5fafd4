package dev.idempotent;

/**
 * Adjusts a recorded value before a repeat gets it: mark it as a replay, refresh a field that must
 * not be served stale, or swap it for a view of it. Set once per instance with {@link
 * IdempotencyConfig.Builder#replayHook}; it is called for every replayed value (a method's value, a
 * {@code CompletionStage}'s or a {@code Mono}'s value, and a {@code Flux}'s items as one {@code
 * List}), never for a first run and never for a replayed failure. It sees only the values of
 * methods and programmatic calls: the web and message adapters' own recorded values (encoded
 * responses, a consumer's nothing) are replayed without it, as is any policy built with {@link
 * IdempotencyPolicy.Builder#withoutReplayHook()}.
 *
 * <p>It runs on the caller's thread (or the thread that completes a deferred replay) before the
 * caller gets anything; keep it fast and free of blocking calls. What it returns is what the caller
 * gets, so it must be of the method's result type: a value of another type fails the call with
 * {@link IdempotencyConfigurationException} naming the scope, and an exception it throws is what
 * the caller gets. The recorded outcome itself is never changed, so every repeat starts from the
 * same value.
 */
@FunctionalInterface
public interface ReplayHook {
  /**
   * @param scope the scope of the replayed record
   * @param value the recorded value ({@code null} for a recorded {@code null} or an empty result)
   * @return the value the caller gets
   */
  Object onReplay(String scope, Object value);

  /** Returns every value as recorded. The default. */
  ReplayHook NONE = (scope, value) -> value;
}
