package dev.idempotent;

import java.lang.reflect.Method;

/** One call of an {@link Idempotent} method, as a {@link KeyResolver} sees it. */
public interface InvocationContext {
  /** The annotated method. */
  Method method();

  /** The instance the method runs on; {@code null} for a static method. */
  Object target();

  /** The arguments, in declaration order. Do not modify. */
  Object[] arguments();

  /** The annotation on the method. */
  Idempotent annotation();
}
