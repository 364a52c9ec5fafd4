package dev.idempotent;

import dev.idempotent.internal.AsyncStores;
import dev.idempotent.internal.ExecutorAccess;
import dev.idempotent.internal.Fingerprints;
import dev.idempotent.internal.IdempotencyExecutor;
import dev.idempotent.internal.LazilyCreatedStore;
import dev.idempotent.internal.LibraryThreads;
import dev.idempotent.internal.NearCacheStore;
import dev.idempotent.internal.OperationPlan;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.internal.WovenMethods;
import dev.idempotent.spi.AsyncIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The programmatic entry point: the same protocol and semantics as {@link Idempotent}, for code
 * that is not woven. The woven aspect uses the {@link #global()} instance.
 *
 * <pre>{@code
 * Receipt r = Idempotency.global().execute(SUBMIT, idempotencyKey, request, () -> orders.submit(request));
 * }</pre>
 */
public final class Idempotency {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");
  private static final Object LOCK = new Object();

  /**
   * How long a failure to build the global instance is re-thrown before the properties are read
   * again.
   */
  private static final long GLOBAL_RETRY_NANOS = 5_000_000_000L;

  private static final RecordKey PROBE = RecordKey.of("idempotent.verify", "probe");
  private static volatile Idempotency global;

  static {
    ExecutorAccess.register(Idempotency::executor);
    ExecutorAccess.registerPlans((idempotency, policy) -> idempotency.plan(policy, true));
  }

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
   * @throws IdempotencyConfigurationException when {@link IdempotencyConfig#requireWoven()} is set
   *     and a recorded {@code @Idempotent} method is not woven (see {@link #verify()})
   */
  public static Idempotency create(IdempotencyConfig config) {
    return new Idempotency(config);
  }

  /**
   * The instance woven methods use: the one {@link #install installed}, or else one built once from
   * {@link IdempotencyConfig#fromProperties()}. A backend that cannot be reached does not fail
   * this: each call meets it as a store failure until the store can be created (see {@link
   * #verify()} to fail fast instead). A failure to build the instance is re-thrown for a few
   * seconds before the properties are read again.
   *
   * @throws IdempotencyConfigurationException when nothing is installed and the properties do not
   *     describe a store
   */
  public static Idempotency global() {
    Idempotency g = global;
    if (g == null) {
      synchronized (LOCK) {
        g = global;
        if (g == null) {
          long now = System.nanoTime();
          if (globalFailure != null && now - globalFailedAt < GLOBAL_RETRY_NANOS) {
            throw new IdempotencyConfigurationException(
                globalFailure.getMessage()
                    + " (from an attempt "
                    + (now - globalFailedAt) / 1_000_000
                    + " ms ago; Idempotency.reset() reads the properties again)",
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
   * Replaces the global instance (at start-up, or between tests); returns it. Stores that the
   * library created from properties for the replaced instance, and that {@code config} does not
   * use, are closed.
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
   * Forgets the installed instance: the next {@link #global()} reads the properties again. Stores
   * that the library created from properties for the forgotten instance are closed; stores the user
   * passed in never are.
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
   * Stops what the library runs in the background and forgets the global instance, for an
   * application that stops (a web application's {@code contextDestroyed}): the threads named {@code
   * idempotent-*} (lease renewal, completion retries) end, and every store the library created
   * itself from properties is closed (its Redisson client, its connection pool). Stores the user
   * passed in are never closed. Calls still running lose their renewals and their claims end with
   * their leases; outcomes not yet recorded are dropped.
   *
   * <p>Nothing stays stopped: a later call starts the threads it needs again, and {@link #global()}
   * reads the properties again (creating new stores).
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
    Set<IdempotencyStore> keptBehindCaches = Collections.newSetFromMap(new IdentityHashMap<>());
    if (replacement != null) {
      for (IdempotencyStore s : stores(replacement.config)) {
        kept.add(s);
        keptBehindCaches.add(NearCacheStore.unwrap(s));
      }
    }
    for (IdempotencyStore s : stores(old.config)) {
      if (kept.contains(s)) {
        continue;
      }
      if (s instanceof NearCacheStore cache) {
        cache.closeCache(); // a near cache the replacement does not use: its subscription ends
      }
      IdempotencyStore shared = NearCacheStore.unwrap(s);
      if (!keptBehindCaches.contains(shared)) {
        PropertiesConfigLoader.closeIfCreated(shared);
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
   * Creates the stores now if they are not created yet, and checks that each one answers (one read
   * of a key that is never written), so that an application can fail fast at start-up: {@code
   * Idempotency.global().verify();}
   *
   * <p>It also reports the {@code @Idempotent} methods that the annotation processor recorded at
   * compile time but whose classes were not woven (so their calls run unprotected): each is logged
   * as a WARN once, or, when {@link IdempotencyConfig#requireWoven()} is set, they fail this call.
   * The same report runs once when the first instance is created in a class loader.
   *
   * @return this instance
   * @throws IdempotencyStoreException naming the store, with the cause, when a store cannot be
   *     reached
   * @throws IdempotencyConfigurationException when a store's settings are wrong, or a recorded
   *     method is not woven and woven methods are required
   */
  public Idempotency verify() {
    requireWoven(WovenMethods.report());
    Map<String, IdempotencyStore> all = new LinkedHashMap<>();
    all.put("", config.defaultStore());
    all.putAll(config.stores());
    for (Map.Entry<String, IdempotencyStore> e : all.entrySet()) {
      String which =
          e.getKey().isEmpty()
              ? "the default idempotency store"
              : "the idempotency store '" + e.getKey() + "'";
      IdempotencyStore store = e.getValue();
      try {
        store = NearCacheStore.unwrap(store);
        if (store instanceof LazilyCreatedStore lazy) {
          store = lazy.get();
        }
        store.read(PROBE.fittedTo(store.maxKeyLength()));
      } catch (IdempotencyException failure) {
        throw failure;
      } catch (RuntimeException failure) {
        throw new IdempotencyStoreException(
            which
                + " ("
                + store.getClass().getSimpleName()
                + ") cannot be reached: "
                + failure.getMessage(),
            null,
            null,
            failure);
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

  // ----------------------------------------------------------------------------------------------
  // administration

  /**
   * The record of {@code key} in {@code scope}, as an operator may see it (never its outcome, owner
   * token or whole key), or empty when the key is free (no record, or an expired one). Reads only;
   * the record is found exactly as a call finds it: {@code RecordKey.of(scope, key)} fitted to the
   * store's key length. For an annotated method the scope is {@link Idempotent#scope()}, or else
   * the method itself, as {@code class.method(parameter types)}, for example {@code
   * com.shop.Orders.submit(com.shop.Order,java.lang.String)}; events and log lines carry it.
   *
   * @param store the name of a registered store, {@code ""} (or {@code null}) for the default store
   * @param scope the scope the calls used
   * @param key the key the calls used, as the key expression or resolver produced it
   * @throws IllegalArgumentException when {@code scope} is empty or {@code key} is blank
   * @throws IdempotencyConfigurationException when there is no store of that name
   * @throws IdempotencyStoreException when the store fails or cannot be reached
   */
  public Optional<IdempotencyRecordView> inspect(String store, String scope, String key) {
    String name = store == null ? "" : store;
    IdempotencyStore target = config.store(name);
    RecordKey recordKey = RecordKey.of(scope, key).fittedTo(target.maxKeyLength());
    try {
      return target.read(recordKey).map(r -> IdempotencyRecordView.of(name, r));
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw adminFailure("reading", name, target, recordKey, e);
    }
  }

  /**
   * Deletes the record of {@code key} in {@code scope} whatever its state and owner, and returns
   * whether there was one (an expired record counts as none). For an operator: a key whose holder
   * is stuck is freed at once, and a completed outcome is forgotten so that the next call runs the
   * method again. Not for the call path: a call that still runs under a deleted claim may finish
   * while a second call of the same key runs (its completion is then refused, as after a takeover).
   * The key is found as in {@link #inspect}. Logs at INFO (scope and redacted key) and emits {@link
   * IdempotencyEvent.Type#DELETED} to the listener when a record was deleted.
   *
   * @param store the name of a registered store, {@code ""} (or {@code null}) for the default store
   * @param scope the scope the calls used
   * @param key the key the calls used
   * @throws IllegalArgumentException when {@code scope} is empty or {@code key} is blank
   * @throws IdempotencyConfigurationException when there is no store of that name
   * @throws IdempotencyStoreException when the store fails or cannot be reached
   */
  public boolean delete(String store, String scope, String key) {
    String name = store == null ? "" : store;
    IdempotencyStore target = config.store(name);
    RecordKey recordKey = RecordKey.of(scope, key).fittedTo(target.maxKeyLength());
    boolean deleted;
    try {
      deleted = target.delete(recordKey);
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw adminFailure("deleting", name, target, recordKey, e);
    }
    if (!deleted) {
      LOG.info("delete of {} in {}: no live record, nothing deleted", recordKey, describe(name));
      return false;
    }
    LOG.info(
        "deleted {} in {}: the next call of this key runs the method", recordKey, describe(name));
    IdempotencyListener listener = config.listener();
    try {
      listener.onEvent(
          new IdempotencyEvent(
              IdempotencyEvent.Type.DELETED,
              recordKey.scope(),
              recordKey.redactedKey(),
              Duration.ZERO,
              null));
    } catch (RuntimeException e) {
      LOG.warn(
          "IdempotencyListener {} threw on {}; ignored",
          listener.getClass().getName(),
          IdempotencyEvent.Type.DELETED,
          e);
    }
    return true;
  }

  private static String describe(String store) {
    return store.isEmpty() ? "the default store" : "store '" + store + "'";
  }

  private static IdempotencyStoreException adminFailure(
      String doing, String name, IdempotencyStore target, RecordKey key, RuntimeException e) {
    return new IdempotencyStoreException(
        doing
            + " the record in "
            + describe(name)
            + " ("
            + target.getClass().getSimpleName()
            + ") failed: "
            + e.getClass().getName()
            + " (see the cause)",
        key.scope(),
        key.redactedKey(),
        e);
  }

  /**
   * The non-blocking face of {@code store}, as the library uses it: the store itself when it
   * implements {@link AsyncIdempotencyStore}, else an adapter that runs its blocking operations on
   * a bounded executor of the store's own and waits with a timer (see {@link
   * AsyncIdempotencyStore}).
   */
  public static AsyncIdempotencyStore nonBlocking(IdempotencyStore store) {
    return AsyncStores.of(Objects.requireNonNull(store, "store"));
  }

  /**
   * Builds the plan of {@code policy} on this instance now, as its first call would: its store is
   * configured, its result type can be recorded, and its scope's id collides with no other scope's.
   * So a mistake fails at start-up rather than at the first call. Calling it is optional.
   *
   * @throws IdempotencyConfigurationException naming what is wrong
   */
  public void prepare(IdempotencyPolicy policy) {
    plan(policy, false);
  }

  /**
   * The executor of this instance's calls, woven or programmatic; reached from the aspect through
   * {@link ExecutorAccess}.
   */
  IdempotencyExecutor executor() {
    return executor;
  }

  /**
   * Whether the last idempotent call this thread made, woven or programmatic, got a recorded
   * outcome (value or failure) instead of running its body: read it right after the call, in the
   * caller's own flow, with no change to the method's return type.
   *
   * <pre>{@code
   * Receipt receipt = orders.submit(request);
   * if (Idempotency.lastCallReplayed()) {
   *   log.info("order {} was already submitted", receipt.id());
   * }
   * }</pre>
   *
   * It is {@code false} before any call, after a call whose body ran (calls nested in that body do
   * not change it), and after a call the library refused (in progress, mismatched payload, store
   * failure). For a method returning a {@code CompletionStage} it tells whether the returned stage
   * holds a recorded outcome. Work whose result arrives on another thread ({@code Mono}, {@code
   * Flux}, {@link #executeDeferred}) cannot be told this way: mark its replayed values with a
   * {@link ReplayHook}, or listen for {@link IdempotencyEvent.Type#REPLAYED}.
   */
  public static boolean lastCallReplayed() {
    return IdempotencyExecutor.lastCallReplayed();
  }

  /**
   * The scopes this JVM has planned operations in so far (on a first call, or on {@link #prepare}),
   * sorted, each with what first planned it ({@code "@Idempotent on A.b(C)"}, or a policy or rule
   * built in code). An operator compares it across a deploy: a scope that disappears orphans its
   * records (see docs/guarantees.md on scopes that survive refactoring). The Spring Boot Actuator
   * endpoint lists it.
   */
  public static java.util.SortedMap<String, String> scopesInUse() {
    return dev.idempotent.internal.ScopeIds.inUse();
  }

  /**
   * Runs {@code body} at most once per {@code key}, with no payload check.
   *
   * @throws Exception what {@code body} threw (unchanged), a recorded failure, or an {@link
   *     IdempotencyException}
   */
  public <T> T execute(IdempotencyPolicy policy, String key, Callable<T> body) throws Exception {
    return run(policy, key, null, body);
  }

  /**
   * Runs {@code body} at most once per {@code key}; a repeat whose {@code payload} differs from the
   * first one's gets {@link IdempotencyKeyMismatchException}. The payload is digested by content
   * ({@code null} is a value too: a call with a {@code null} payload and its repeat with another
   * payload differ).
   */
  public <T> T execute(IdempotencyPolicy policy, String key, Object payload, Callable<T> body)
      throws Exception {
    return run(policy, key, Fingerprints.of(payload), body);
  }

  /**
   * {@link #execute(IdempotencyPolicy, String, Callable)} for a body that throws no checked
   * exception.
   */
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
   * The asynchronous form: the outcome is recorded when the stage completes; a failed stage is
   * treated like a thrown exception. Repeats get a completed (or failed) stage with the recorded
   * outcome. No payload check.
   */
  public <T> CompletionStage<T> executeAsync(
      IdempotencyPolicy policy, String key, Supplier<? extends CompletionStage<T>> body) {
    return runAsync(policy, key, null, body);
  }

  /**
   * {@link #executeAsync(IdempotencyPolicy, String, Supplier)} with a payload check, exactly as
   * {@link #execute(IdempotencyPolicy, String, Object, Callable)} does it: the payload, {@code
   * null} included, is fingerprinted, and a repeat whose payload differs gets {@link
   * IdempotencyKeyMismatchException} (through the stage).
   */
  public <T> CompletionStage<T> executeAsync(
      IdempotencyPolicy policy,
      String key,
      Object payload,
      Supplier<? extends CompletionStage<T>> body) {
    String fingerprint;
    try {
      fingerprint = Fingerprints.of(payload);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return runAsync(policy, key, fingerprint, body);
  }

  /**
   * {@link #executeAsync(IdempotencyPolicy, String, Object, Supplier)} without blocking the calling
   * thread at any step: the claim, a wait for a key in progress and the recording use the store's
   * non-blocking face (a store without one runs on a bounded executor of its own). {@code body}
   * runs on the thread that completes the claim: the caller's when the store answers at once (the
   * memory store), else a thread of the store's client or of its executor; hand blocking work to an
   * executor of your own. Every refusal fails the returned stage.
   *
   * @param payload the payload to check (digested by content; {@code null} is a value too)
   */
  public <T> CompletionStage<T> executeDeferred(
      IdempotencyPolicy policy,
      String key,
      Object payload,
      Supplier<? extends CompletionStage<T>> body) {
    String fingerprint;
    try {
      fingerprint = Fingerprints.of(payload);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return deferred(policy, key, fingerprint, body);
  }

  /**
   * {@link #executeDeferred(IdempotencyPolicy, String, Object, Supplier)} with no payload check.
   */
  public <T> CompletionStage<T> executeDeferred(
      IdempotencyPolicy policy, String key, Supplier<? extends CompletionStage<T>> body) {
    return deferred(policy, key, null, body);
  }

  /**
   * Claims {@code key} for work the caller runs and settles itself ({@link IdempotencyClaim}), for
   * an adapter whose unit of work is not one body: several keys claimed together, then one call
   * that does their work. Nothing blocks: a key in progress is waited for as the policy says, on
   * the store's non-blocking face. The stage fails with the library's exception on a refusal (in
   * progress after the wait, another payload, a store outage under fail-closed).
   *
   * @param payload the payload to check (digested by content; {@code null} is a value too)
   */
  public CompletionStage<IdempotencyClaim> claim(
      IdempotencyPolicy policy, String key, Object payload) {
    String fingerprint;
    try {
      fingerprint = Fingerprints.of(payload);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return claimWith(policy, key, fingerprint);
  }

  /** {@link #claim(IdempotencyPolicy, String, Object)} with no payload check. */
  public CompletionStage<IdempotencyClaim> claim(IdempotencyPolicy policy, String key) {
    return claimWith(policy, key, null);
  }

  private CompletionStage<IdempotencyClaim> claimWith(
      IdempotencyPolicy policy, String key, String fingerprint) {
    try {
      return executor
          .deferred()
          .claim(plan(policy, true), key, fingerprint)
          .thenApply(IdempotencyClaim::new);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @SuppressWarnings("unchecked")
  private <T> CompletionStage<T> deferred(
      IdempotencyPolicy policy,
      String key,
      String fingerprint,
      Supplier<? extends CompletionStage<T>> body) {
    try {
      return executor
          .deferred()
          .execute(plan(policy, true), key, fingerprint, body)
          .thenApply(v -> (T) v);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @SuppressWarnings("unchecked")
  private <T> CompletionStage<T> runAsync(
      IdempotencyPolicy policy,
      String key,
      String fingerprint,
      Supplier<? extends CompletionStage<T>> body) {
    try {
      return (CompletionStage<T>) executor.execute(plan(policy, true), key, fingerprint, body::get);
    } catch (Throwable t) {
      return CompletableFuture.failedFuture(t);
    }
  }

  /**
   * The plan of {@code policy} on this instance, built on its first call and kept on the policy
   * (which is immutable) for the next one; built again when the policy is used on another instance,
   * the other way (async or not), or under another context class loader (through which recorded
   * failures are read back).
   */
  private OperationPlan plan(IdempotencyPolicy policy, boolean async) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    IdempotencyPolicy.CachedPlan cached = policy.cachedPlan;
    if (cached != null
        && cached.owner() == this
        && cached.async() == async
        && cached.loader() == loader) {
      return cached.plan();
    }
    OperationPlan plan = OperationPlan.of(policy, config, async, loader);
    policy.cachedPlan = new IdempotencyPolicy.CachedPlan(this, async, loader, plan);
    return plan;
  }

  @SuppressWarnings("unchecked")
  private <T> T run(IdempotencyPolicy policy, String key, String fingerprint, Callable<T> body)
      throws Exception {
    try {
      return (T) executor.execute(plan(policy, false), key, fingerprint, body::call);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new java.lang.reflect.UndeclaredThrowableException(t);
    }
  }
}
