package dev.idempotent;

import dev.idempotent.internal.Fingerprints;
import dev.idempotent.internal.IdempotencyExecutor;
import dev.idempotent.internal.OperationPlan;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The programmatic entry point: the same protocol and semantics as {@link Idempotent}, for code that is not
 * woven. The woven aspect uses the {@link #global()} instance.
 *
 * <pre>{@code
 * Receipt r = Idempotency.global().execute(SUBMIT, idempotencyKey, request, () -> orders.submit(request));
 * }</pre>
 */
public final class Idempotency {
  private static final Object LOCK = new Object();
  private static volatile Idempotency global;

  private final IdempotencyConfig config;
  private final IdempotencyExecutor executor;

  private Idempotency(IdempotencyConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.executor = new IdempotencyExecutor(config);
  }

  /** An instance over {@code config}, independent of the global one. */
  public static Idempotency create(IdempotencyConfig config) {
    return new Idempotency(config);
  }

  /**
   * The instance woven methods use: the one {@link #install installed}, or else one built once from
   * {@link IdempotencyConfig#fromProperties()}.
   *
   * @throws IdempotencyConfigurationException when nothing is installed and the properties do not describe a store
   */
  public static Idempotency global() {
    Idempotency g = global;
    if (g == null) {
      synchronized (LOCK) {
        g = global;
        if (g == null) {
          g = new Idempotency(IdempotencyConfig.fromProperties());
          global = g;
        }
      }
    }
    return g;
  }

  /** Replaces the global instance (at start-up, or between tests); returns it. */
  public static Idempotency install(IdempotencyConfig config) {
    Idempotency g = new Idempotency(config);
    synchronized (LOCK) {
      global = g;
    }
    return g;
  }

  /** Forgets the installed instance: the next {@link #global()} reads the properties again. */
  public static void reset() {
    synchronized (LOCK) {
      global = null;
    }
  }

  public IdempotencyConfig config() {
    return config;
  }

  /** For the woven aspect. */
  IdempotencyExecutor executor() {
    return executor;
  }

  /**
   * Runs {@code body} at most once per {@code key}, with no payload check.
   *
   * @throws Exception what {@code body} threw (unchanged), a recorded failure, or an {@link IdempotencyException}
   */
  public <T> T execute(IdempotencyPolicy policy, String key, Callable<T> body) throws Exception {
    return run(policy, key, null, body);
  }

  /**
   * Runs {@code body} at most once per {@code key}; a repeat whose {@code payload} differs from the first one's
   * gets {@link IdempotencyKeyMismatchException}.
   */
  public <T> T execute(IdempotencyPolicy policy, String key, Object payload, Callable<T> body) throws Exception {
    return run(policy, key, Fingerprints.of(payload), body);
  }

  /** {@link #execute(IdempotencyPolicy, String, Callable)} for a body that throws no checked exception. */
  public <T> T call(IdempotencyPolicy policy, String key, Supplier<T> body) {
    try {
      return run(policy, key, null, body::get);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("a recorded checked failure was replayed: " + e, e);
    }
  }

  /**
   * The asynchronous form: the outcome is recorded when the stage completes; a failed stage is treated like a
   * thrown exception. Repeats get a completed (or failed) stage with the recorded outcome.
   */
  @SuppressWarnings("unchecked")
  public <T> CompletionStage<T> executeAsync(IdempotencyPolicy policy, String key, Object payload,
      Supplier<? extends CompletionStage<T>> body) {
    try {
      return (CompletionStage<T>) executor.execute(OperationPlan.of(policy, config, true), key,
          payload == null ? null : Fingerprints.of(payload), body::get);
    } catch (Throwable t) {
      return CompletableFuture.failedFuture(t);
    }
  }

  @SuppressWarnings("unchecked")
  private <T> T run(IdempotencyPolicy policy, String key, String fingerprint, Callable<T> body) throws Exception {
    try {
      return (T) executor.execute(OperationPlan.of(policy, config, false), key, fingerprint, body::call);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new java.lang.reflect.UndeclaredThrowableException(t);
    }
  }
}
