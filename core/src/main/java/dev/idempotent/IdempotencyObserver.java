package dev.idempotent;

/**
 * Sees each idempotent call from its start to its end, with the store round trips it made: the seam
 * for traces (a Micrometer {@code Observation} per call lives in the {@code idempotent-micrometer}
 * module). Plain Java; set it with {@link IdempotencyConfig.Builder#observer}.
 *
 * <p>For each call the library makes exactly one {@link #start}, then any number of {@link
 * Call#event}s, {@link Call#roundTrip}s and {@link Call#waitForKey}s (each ended once), then
 * exactly one {@link Call#end}. A blocking call starts on the caller's thread and, while the method
 * runs, holds {@link Call#openScope} open there (so what the method does is nested in the call); a
 * deferred call (Reactor, coroutine, WebFlux, {@code CompletionStage}) starts where its claim
 * starts and may end on another thread.
 *
 * <p>Nothing given to an observer carries the key: only the scope, the store's name, the adapter
 * and, for those who ask for it, the key's short digest. An observer's exception is logged and
 * otherwise ignored; keep it fast, it runs on the call's path.
 */
public interface IdempotencyObserver {

  /**
   * Starts observing one call.
   *
   * @param scope the operation's scope (as the meters bound it: one per operation)
   * @param store the store's name in the configuration ({@code default} for the default store)
   * @param adapter what made the call: {@code method}, {@code http}, {@code webflux}, {@code
   *     kafka}, {@code rabbit}, {@code camel}
   * @param keyDigest the key as a short digest (never the key)
   */
  Call start(String scope, String store, String adapter, String keyDigest);

  /** Observes nothing, at no cost. The default. */
  IdempotencyObserver NO_OP = (scope, store, adapter, keyDigest) -> Call.NONE;

  /** One observed call. */
  interface Call {
    /** Something that happened during the call and did not end it. */
    default void event(IdempotencyEvent.Type type) {}

    /**
     * A store round trip begins ({@code claim}, {@code complete}, {@code release}); end the
     * returned one when the store answered.
     */
    default RoundTrip roundTrip(String operation) {
      return RoundTrip.NONE;
    }

    /**
     * A wait for a key in progress begins (another call holds it; this one waits for a change of
     * the key, at most one pause, then claims again): end the returned one when the wait is over
     * ({@code null}) or failed. A call that waits several times has one wait each.
     */
    default RoundTrip waitForKey() {
      return RoundTrip.NONE;
    }

    /**
     * Makes this call the current one on this thread while the method runs; closing it restores
     * what was current before. Never throws.
     */
    default Scope openScope() {
      return Scope.NONE;
    }

    /**
     * The call ended.
     *
     * @param error what the caller got thrown, or {@code null}
     */
    default void end(CallOutcome outcome, Throwable error) {}

    /** Observes nothing. */
    Call NONE = new Call() {};
  }

  /** One store round trip of a call. */
  @FunctionalInterface
  interface RoundTrip {
    /** The store answered ({@code error} {@code null}) or failed. */
    void end(Throwable error);

    /** Observes nothing. */
    RoundTrip NONE = error -> {};
  }

  /** What {@link Call#openScope} made current; closing it restores what was current before. */
  interface Scope extends AutoCloseable {
    @Override
    void close();

    /** Restores nothing. */
    Scope NONE = () -> {};
  }
}
