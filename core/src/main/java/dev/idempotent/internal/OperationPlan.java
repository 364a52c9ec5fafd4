package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencySettings;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.lang.reflect.Type;
import java.time.Duration;

/**
 * One operation's settings resolved against a configuration: the store object, concrete durations,
 * the value type the codec reads back, the class loader recorded failures are read back through,
 * and what messages call the operation and its key. Built once per annotated method and installed
 * configuration, or once per programmatic policy, and shared by all their calls. Building it checks
 * what can be checked before the first call: the store is configured and accepts digest-length
 * keys, and the codec can record results of the declared type.
 */
public final class OperationPlan {
  final String scope;
  final IdempotencyStore store;
  final int maxKeyLength;
  final Duration ttl;
  final Duration lease;
  final Duration waitTimeout;
  final OnDuplicate onDuplicate;
  final OnInProgress onInProgress;
  final OnAmbiguousFailure onAmbiguousFailure;
  final IdempotencySettings settings;
  final Class<? extends Throwable>[] recordFailures;
  final Type valueType;

  /** The class a replayed value must be an instance of ({@code null}: any, or none). */
  final Class<?> replayedClass;

  final boolean async;
  final ClassLoader loader;

  /** Whether the configuration's replay hook sees this operation's replayed values. */
  final boolean replayHooked;

  /**
   * What gives the key, for a null or blank one: "@Idempotent on A.b(C): key expression '#c'";
   * null: the caller.
   */
  final String keySource;

  /** The adapter that makes the calls, and the store's name, as observations name them. */
  final String adapter;

  final String storeName;

  private OperationPlan(
      IdempotencyPolicy p,
      IdempotencyConfig config,
      boolean async,
      ClassLoader loader,
      String where,
      String keySource) {
    IdempotencySettings settings = p.settings();
    this.settings = settings;
    IdempotencyStore s;
    try {
      s = config.store(settings.store());
    } catch (IdempotencyConfigurationException e) {
      throw where == null
          ? e
          : new IdempotencyConfigurationException(where + ": " + e.getMessage(), e);
    }
    int max = s.maxKeyLength();
    if (max < RecordKey.DIGEST_LENGTH) {
      throw new IdempotencyConfigurationException(
          (where == null ? "" : where + ": ")
              + "store "
              + s.getClass().getName()
              + " indexes keys of at most "
              + max
              + " characters; a store must accept at least "
              + RecordKey.DIGEST_LENGTH);
    }
    this.store = s;
    this.maxKeyLength = max;
    this.scope = p.scope();
    ScopeIds.register(RecordKey.of(scope, "k").fittedTo(max).scope(), where);
    this.ttl = settings.ttl() != null ? settings.ttl() : config.defaultTtl();
    this.lease = settings.lease() != null ? settings.lease() : config.defaultLease();
    this.waitTimeout =
        settings.waitTimeout() != null ? settings.waitTimeout() : config.defaultWaitTimeout();
    this.onDuplicate = settings.onDuplicate();
    this.onInProgress = settings.onInProgress();
    this.onAmbiguousFailure = settings.onAmbiguousFailure();
    this.recordFailures = settings.recordFailures();
    this.valueType = p.resultType();
    this.replayedClass = replayedClass(valueType);
    this.async = async;
    this.replayHooked = p.replayHooked();
    this.loader = loader != null ? loader : OperationPlan.class.getClassLoader();
    this.keySource = where == null ? null : where + ": " + keySource;
    this.adapter = p.adapter();
    this.storeName = settings.store().isEmpty() ? "default" : settings.store();
    if (valueType != void.class
        && valueType != Void.class) { // always null: the library encodes it itself
      config
          .codec()
          .checkEncodable(valueType, where != null ? where : "the operation of scope " + scope);
    }
  }

  /**
   * The plan of a programmatic policy, reading recorded failures back through {@code loader}.
   *
   * @throws IdempotencyConfigurationException when the store is not configured or the codec cannot
   *     record results of the policy's result type
   */
  public static OperationPlan of(
      IdempotencyPolicy p, IdempotencyConfig config, boolean async, ClassLoader loader) {
    return new OperationPlan(p, config, async, loader, null, null);
  }

  /**
   * The plan of an annotated method: {@code where} names it in messages ("@Idempotent on A.b(C)")
   * and {@code keySource} says what gives its keys ("key expression '#c'").
   */
  public static OperationPlan ofMethod(
      IdempotencyPolicy p,
      IdempotencyConfig config,
      boolean async,
      ClassLoader loader,
      String where,
      String keySource) {
    return new OperationPlan(p, config, async, loader, where, keySource);
  }

  boolean records(Throwable t) {
    return settings.records(t);
  }

  private static Class<?> replayedClass(Type type) {
    Type raw = type instanceof java.lang.reflect.ParameterizedType p ? p.getRawType() : type;
    if (!(raw instanceof Class<?> c) || c == void.class || c == Void.class) {
      return null;
    }
    if (!c.isPrimitive()) {
      return c;
    }
    return java.lang.invoke.MethodType.methodType(c).wrap().returnType();
  }
}
