package dev.idempotent;

import dev.idempotent.internal.DeferredStore;
import dev.idempotent.internal.Fingerprints;
import dev.idempotent.internal.IdempotencyExecutor;
import dev.idempotent.internal.LibraryThreads;
import dev.idempotent.internal.OperationPlan;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.internal.WovenMethods;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
  /** How long a failure to build the global instance is re-thrown before the properties are read again. */
  private static final long GLOBAL_RETRY_NANOS = 5_000_000_000L;
  private static final RecordKey PROBE = RecordKey.of("idempotent.verify", "probe");
  private static volatile Idempotency global;
  // guarded by LOCK
  private static IdempotencyConfigurationException globalFailure;
  private static long globalFailedAt;

  private final IdempotencyConfig config;
  private final IdempotencyExecutor executor;

  private Idempotency(IdempotencyConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    requireWoven(WovenMethods.reportOnce());
    this.executor = new IdempotencyExecutor(config);
  }

  /**
   * An instance over {@code config}, independent of the global one.
   *
   * @throws IdempotencyConfigurationException when {@link IdempotencyConfig#requireWoven()} is set and a recorded
   *     {@code @Idempotent} method is not woven (see {@link #verify()})
   */
  public static Idempotency create(IdempotencyConfig config) {
    return new Idempotency(config);
  }

  /**
   * The instance woven methods use: the one {@link #install installed}, or else one built once from
   * {@link IdempotencyConfig#fromProperties()}. A backend that cannot be reached does not fail this: each call
   * meets it as a store failure until the store can be created (see {@link #verify()} to fail fast instead).
   * A failure to build the instance is re-thrown for a few seconds before the properties are read again.
   *
   * @throws IdempotencyConfigurationException when nothing is installed and the properties do not describe a store
   */
  public static Idempotency global() {
    Idempotency g = global;
    if (g == null) {
      synchronized (LOCK) {
        g = global;
        if (g == null) {
          long now = System.nanoTime();
          if (globalFailure != null && now - globalFailedAt < GLOBAL_RETRY_NANOS) {
            throw new IdempotencyConfigurationException(globalFailure.getMessage() + " (from an attempt "
                + (now - globalFailedAt) / 1_000_000 + " ms ago; Idempotency.reset() reads the properties again)",
                globalFailure);
          }
          try {
            g = new Idempotency(IdempotencyConfig.fromProperties());
          } catch (IdempotencyConfigurationException e) {
            globalFailure = e;
            globalFailedAt = now;
            throw e;
          }
          globalFailure = null;
          global = g;
        }
      }
    }
    return g;
  }

  /**
   * Replaces the global instance (at start-up, or between tests); returns it. Stores that the library created
   * from properties for the replaced instance, and that {@code config} does not use, are closed.
   */
  public static Idempotency install(IdempotencyConfig config) {
    Idempotency g = new Idempotency(config);
    Idempotency old;
    synchronized (LOCK) {
      old = global;
      global = g;
      globalFailure = null;
    }
    closeReplaced(old, g);
    return g;
  }

  /**
   * Forgets the installed instance: the next {@link #global()} reads the properties again. Stores that the
   * library created from properties for the forgotten instance are closed; stores the user passed in never are.
   */
  public static void reset() {
    Idempotency old;
    synchronized (LOCK) {
      old = global;
      global = null;
      globalFailure = null;
    }
    closeReplaced(old, null);
  }

  /**
   * Stops what the library runs in the background and forgets the global instance, for an application that
   * stops (a web application's {@code contextDestroyed}): the threads named {@code idempotent-*} (lease renewal,
   * completion retries) end, and every store the library created itself from properties is closed (its Redisson
   * client, its connection pool). Stores the user passed in are never closed. Calls still running lose their
   * renewals and their claims end with their leases; outcomes not yet recorded are dropped.
   *
   * <p>Nothing stays stopped: a later call starts the threads it needs again, and {@link #global()} reads the
   * properties again (creating new stores).
   */
  public static void shutdown() {
    synchronized (LOCK) {
      global = null;
      globalFailure = null;
    }
    LibraryThreads.stopAll();
    PropertiesConfigLoader.closeAllCreated();
  }

  private static void closeReplaced(Idempotency old, Idempotency replacement) {
    if (old == null || old == replacement) {
      return;
    }
    Set<IdempotencyStore> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    if (replacement != null) {
      kept.addAll(stores(replacement.config));
    }
    for (IdempotencyStore s : stores(old.config)) {
      if (!kept.contains(s)) {
        PropertiesConfigLoader.closeIfCreated(s);
      }
    }
  }

  private static List<IdempotencyStore> stores(IdempotencyConfig c) {
    List<IdempotencyStore> all = new ArrayList<>();
    all.add(c.defaultStore());
    all.addAll(c.stores().values());
    return all;
  }

  /**
   * Creates the stores now if they are not created yet, and checks that each one answers (one read of a key that
   * is never written), so that an application can fail fast at start-up:
   * {@code Idempotency.global().verify();}
   *
   * <p>It also reports the {@code @Idempotent} methods that the annotation processor recorded at compile time
   * but whose classes were not woven (so their calls run unprotected): each is logged as a WARN once, or, when
   * {@link IdempotencyConfig#requireWoven()} is set, they fail this call. The same report runs once when the
   * first instance is created in a class loader.
   *
   * @return this instance
   * @throws IdempotencyStoreException naming the store, with the cause, when a store cannot be reached
   * @throws IdempotencyConfigurationException when a store's settings are wrong, or a recorded method is not woven
   *     and woven methods are required
   */
  public Idempotency verify() {
    requireWoven(WovenMethods.report());
    Map<String, IdempotencyStore> all = new LinkedHashMap<>();
    all.put("", config.defaultStore());
    all.putAll(config.stores());
    for (Map.Entry<String, IdempotencyStore> e : all.entrySet()) {
      String which = e.getKey().isEmpty() ? "the default idempotency store" : "the idempotency store '" + e.getKey()
          + "'";
      IdempotencyStore store = e.getValue();
      try {
        if (store instanceof DeferredStore deferred) {
          store = deferred.get();
        }
        store.read(PROBE.fittedTo(store.maxKeyLength()));
      } catch (IdempotencyException failure) {
        throw failure;
      } catch (RuntimeException failure) {
        throw new IdempotencyStoreException(which + " (" + store.getClass().getSimpleName() + ") cannot be reached: "
            + failure.getMessage(), null, null, failure);
      }
    }
    return this;
  }

  private void requireWoven(List<String> unwoven) {
    if (config.requireWoven() && !unwoven.isEmpty()) {
      throw new IdempotencyConfigurationException(WovenMethods.requiredMessage(unwoven));
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
