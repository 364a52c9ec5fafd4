package dev.idempotent.internal.aspect;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.Idempotent;
import dev.idempotent.internal.OperationPlan;
import java.lang.reflect.Type;
import java.time.Duration;

/** Turns an annotation's attributes into the same {@link OperationPlan} a programmatic policy gets. */
final class AspectPlans {
  private AspectPlans() {}

  static OperationPlan operationPlan(IdempotencyConfig config, String scope, Idempotent a, Duration ttl,
      Duration lease, Duration waitTimeout, Type valueType, boolean async, ClassLoader loader) {
    IdempotencyPolicy.Builder b = IdempotencyPolicy.builder(scope)
        .store(a.store())
        .onDuplicate(a.onDuplicate())
        .onInProgress(a.onInProgress())
        .recordFailures(a.recordFailures())
        .resultType(valueType);
    if (ttl != null) {
      b.ttl(ttl);
    }
    if (lease != null) {
      b.lease(lease);
    }
    if (waitTimeout != null) {
      b.waitTimeout(waitTimeout);
    }
    return OperationPlan.of(b.build(), config, async, loader);
  }
}
