package dev.idempotent.internal.aspect;

import java.lang.reflect.Method;

/** Calls a test class's {@code @Idempotent} method the way the woven aspect does. */
final class PlannedCalls {
  private PlannedCalls() {}

  /** Calls {@code target}'s declared method {@code name} through a fresh {@link MethodPlan}. */
  @SuppressWarnings("unchecked")
  static <T> T call(Object target, String name, Object... args) throws Throwable {
    Method found = null;
    for (Method candidate : target.getClass().getDeclaredMethods()) {
      if (candidate.getName().equals(name)) {
        found = candidate;
      }
    }
    if (found == null) {
      throw new IllegalArgumentException(target.getClass() + " declares no method " + name);
    }
    Method method = found;
    method.setAccessible(true);
    MethodPlan plan = new MethodPlan(method, null);
    return (T) plan.invoke(target, args, () -> method.invoke(target, args));
  }
}
