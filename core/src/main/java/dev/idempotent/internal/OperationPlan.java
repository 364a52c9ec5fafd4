package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;

/**
 * One operation's settings resolved against a configuration: the store object, concrete durations, the
 * value type the codec reads back. Built once per annotated method (or per policy and configuration) and
 * shared by all its calls.
 */
public final class OperationPlan {
  final IdempotencyConfig config;
  final String scope;
  final IdempotencyStore store;
  final int maxKeyLength;
  final Duration ttl;
  final Duration lease;
  final Duration waitTimeout;
  final OnDuplicate onDuplicate;
  final OnInProgress onInProgress;
  final Class<? extends Throwable>[] recordFailures;
  final java.lang.reflect.Type valueType;
  final boolean async;
  final ClassLoader loader;

  OperationPlan(IdempotencyConfig config, String scope, String storeName, Duration ttl, Duration lease,
      Duration waitTimeout, OnDuplicate onDuplicate, OnInProgress onInProgress,
      Class<? extends Throwable>[] recordFailures, java.lang.reflect.Type valueType, boolean async,
      ClassLoader loader) {
    this.config = config;
    this.scope = scope;
    this.store = config.store(storeName);
    int max = store.maxKeyLength();
    if (max < dev.idempotent.spi.RecordKey.DIGEST_LENGTH) {
      throw new IdempotencyConfigurationException("store " + store.getClass().getName() + " indexes keys of at most "
          + max + " characters; a store must accept at least " + dev.idempotent.spi.RecordKey.DIGEST_LENGTH);
    }
    this.maxKeyLength = max;
    this.ttl = ttl != null ? ttl : config.defaultTtl();
    this.lease = lease != null ? lease : config.defaultLease();
    this.waitTimeout = waitTimeout != null ? waitTimeout : config.defaultWaitTimeout();
    this.onDuplicate = onDuplicate;
    this.onInProgress = onInProgress;
    this.recordFailures = recordFailures;
    this.valueType = valueType;
    this.async = async;
    this.loader = loader != null ? loader : OperationPlan.class.getClassLoader();
  }

  /** The plan of a programmatic policy. */
  public static OperationPlan of(IdempotencyPolicy p, IdempotencyConfig config, boolean async) {
    return of(p, config, async, Thread.currentThread().getContextClassLoader());
  }

  /** The plan of a policy, reading recorded failures back through {@code loader}. */
  public static OperationPlan of(IdempotencyPolicy p, IdempotencyConfig config, boolean async, ClassLoader loader) {
    return new OperationPlan(config, p.scope(), p.store(), p.ttl(), p.lease(), p.waitTimeout(), p.onDuplicate(),
        p.onInProgress(), p.recordFailures(), p.resultType(), async, loader);
  }

  public IdempotencyConfig config() {
    return config;
  }

  public String scope() {
    return scope;
  }

  boolean records(Throwable t) {
    for (Class<? extends Throwable> c : recordFailures) {
      if (c.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
