package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.ReplayHook;
import dev.idempotent.TimeSource;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the two drivers ({@link IdempotencyExecutor} for blocking calls, {@link DeferredDriver} for
 * work whose result arrives later) share for one configuration: where every call starts ({@link
 * #begin}), the codec, the lease renewer, the clock and the listener. The steps of a call are
 * {@link Call} (its events and store round trips), {@link ClaimDecision} (what a claim's answer
 * means) and {@link Settlement} (how a claim this caller holds ends).
 */
public final class Protocol {
  static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  final IdempotencyConfig config;
  final OutcomeCodec outcomes;
  final LeaseRenewer renewer;
  final TimeSource time;
  private final IdempotencyListener listener;
  private final boolean listening;

  /** Scope, declared type and runtime class of each outcome already reported as not recordable. */
  private final Set<List<Object>> reportedUnrecordable = ConcurrentHashMap.newKeySet();

  Protocol(IdempotencyConfig config, LeaseRenewer renewer) {
    this.config = config;
    this.outcomes = new OutcomeCodec(config.codec());
    this.renewer = renewer;
    this.time = config.timeSource();
    this.listener = config.listener();
    this.listening = listener != IdempotencyListener.NO_OP;
  }

  /**
   * The start of one call, before its first claim: every call of either driver starts here.
   *
   * @param fingerprint the payload fingerprint, or {@code null} for no payload check
   * @param io how this call reaches the store (blocking, or on its non-blocking face)
   * @throws IdempotencyKeyException for a null or blank key
   */
  Call begin(OperationPlan plan, String rawKey, String fingerprint, Call.StoreIo io) {
    if (rawKey == null || rawKey.isBlank()) {
      throw blankKey(plan, rawKey);
    }
    RecordKey key = RecordKey.of(plan.scope, rawKey).fittedTo(plan.maxKeyLength);
    return new Call(this, plan, key, fingerprint, time.nanoTime(), io);
  }

  /** A null or blank key, named by what gave it (the plan's key source, or the caller). */
  private static IdempotencyKeyException blankKey(OperationPlan plan, String rawKey) {
    String message =
        plan.keySource == null
            ? "the idempotency key is "
                + (rawKey == null ? "null" : "blank")
                + ": give every call a non-blank key"
            : plan.keySource
                + " gave "
                + (rawKey == null ? "null" : "a blank key")
                + " for these arguments; every call needs a non-blank key";
    return new IdempotencyKeyException(message, plan.scope, null);
  }

  /**
   * {@code value}, recorded under {@code key}, as the configured {@link ReplayHook} hands it to the
   * caller: of the plan's result type, or the call fails naming the scope. A plan without the hook
   * (an adapter's own values) gets the value as recorded.
   */
  Object replayedValue(OperationPlan plan, RecordKey key, Object value) {
    ReplayHook hook = config.replayHook();
    if (hook == ReplayHook.NONE || !plan.replayHooked) {
      return value;
    }
    Object adjusted = hook.onReplay(key.scope(), value);
    Class<?> expected = plan.replayedClass;
    if (adjusted != null && expected != null && !expected.isInstance(adjusted)) {
      throw new IdempotencyConfigurationException(
          "the replay hook returned a "
              + adjusted.getClass().getName()
              + " for scope "
              + key.scope()
              + ", whose callers expect a "
              + expected.getName()
              + ": return a value of the recorded value's type (or the value unchanged)");
    }
    return adjusted;
  }

  /**
   * Whether {@code scope}, {@code declared} and {@code type} are reported as not recordable for the
   * first time (an ERROR once for each, then DEBUG).
   */
  boolean firstUnrecordable(String scope, Object declared, Class<?> type) {
    return reportedUnrecordable.add(List.of(scope, declared, type));
  }

  /** Hands one event to the listener; a listener that throws is logged and ignored. */
  void emit(IdempotencyEvent.Type type, RecordKey key, long start, Throwable error) {
    if (!listening) {
      return;
    }
    try {
      listener.onEvent(
          new IdempotencyEvent(
              type,
              key.scope(),
              key.redactedKey(),
              Duration.ofNanos(time.nanoTime() - start),
              error));
    } catch (Throwable t) {
      LOG.warn(
          "IdempotencyListener {} threw on {}; ignored", listener.getClass().getName(), type, t);
    }
  }

  /**
   * What a message or log line may show of a failure: the library's own exceptions (which name no
   * whole key) in full, any other only by its class name, as a backend's message may carry the key.
   */
  public static String describe(Throwable e) {
    return e instanceof IdempotencyException ? e.toString() : e.getClass().getName();
  }

  /** The failure inside {@link CompletionException} and {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
