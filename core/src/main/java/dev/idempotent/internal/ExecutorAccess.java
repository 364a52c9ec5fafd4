package dev.idempotent.internal;

import dev.idempotent.Idempotency;
import java.util.function.Function;

/**
 * The executor of an {@link Idempotency} instance, for the woven aspect, without a public method on
 * {@code Idempotency} that returns an internal type: {@code Idempotency} registers how to reach it
 * when its class is initialized, before any instance exists. Every call on one instance, woven or
 * programmatic, goes through its one executor.
 */
public final class ExecutorAccess {
  private static volatile Function<Idempotency, IdempotencyExecutor> accessor;

  private ExecutorAccess() {}

  /** Called once, by {@code Idempotency}; later calls are ignored. */
  public static synchronized void register(Function<Idempotency, IdempotencyExecutor> executorOf) {
    if (accessor == null) {
      accessor = executorOf;
    }
  }

  /** The executor {@code idempotency} runs its calls on. */
  public static IdempotencyExecutor of(Idempotency idempotency) {
    return accessor.apply(idempotency);
  }
}
