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

  /**
   * For a method that returns a Reactor {@code Mono} or {@code Flux}: the subscriber's context (a
   * {@code reactor.util.context.ContextView}), read when the publisher is subscribed, so that a
   * resolver can take a tenant or a caller from it. {@code null} for any other method.
   */
  default Object subscriberContext() {
    return null;
  }
}
