package dev.idempotent.internal;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyPolicy;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The executor of an {@link Idempotency} instance, for the woven aspect, without a public method on
 * {@code Idempotency} that returns an internal type: {@code Idempotency} registers how to reach it
 * when its class is initialized, before any instance exists. Every call on one instance, woven or
 * programmatic, goes through its one executor. Likewise the plan of a policy on an instance, for
 * the Reactor entry point ({@code dev.idempotent.reactor}), which {@code Idempotency} cannot name
 * without linking Reactor.
 */
public final class ExecutorAccess {
  private static volatile Function<Idempotency, IdempotencyExecutor> accessor;
  private static volatile BiFunction<Idempotency, IdempotencyPolicy, OperationPlan> plans;

  private ExecutorAccess() {}

  /** Called once, by {@code Idempotency}; later calls are ignored. */
  public static synchronized void register(Function<Idempotency, IdempotencyExecutor> executorOf) {
    if (accessor == null) {
      accessor = executorOf;
    }
  }

  /** Called once, by {@code Idempotency}; later calls are ignored. */
  public static synchronized void registerPlans(
      BiFunction<Idempotency, IdempotencyPolicy, OperationPlan> planOf) {
    if (plans == null) {
      plans = planOf;
    }
  }

  /**
   * The deferred plan of {@code policy} on {@code idempotency}, built on its first use and kept, as
   * {@code Idempotency.executeDeferred} builds it.
   *
   * @throws dev.idempotent.IdempotencyConfigurationException when the policy cannot be planned
   */
  public static OperationPlan plan(Idempotency idempotency, IdempotencyPolicy policy) {
    return plans.apply(idempotency, policy);
  }

  /** The executor {@code idempotency} runs its calls on. */
  public static IdempotencyExecutor of(Idempotency idempotency) {
    return accessor.apply(idempotency);
  }
}
