package dev.idempotent.internal.aspect;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.internal.ListOf;
import dev.idempotent.internal.RefusedResultTypes;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * How an annotated method's result arrives, and so how it is recorded: at once, as a {@code
 * CompletionStage}, as a Reactor {@code Mono} or {@code Flux}, or through the continuation of a
 * Kotlin {@code suspend} function. A deferred type the library cannot record faithfully is refused
 * (the container object itself is never an outcome).
 */
enum ResultKind {
  /** The value itself (or {@code void}). */
  VALUE,
  /** A {@code CompletionStage}: the value it completes with. */
  STAGE,
  /** A Reactor {@code Mono}: the value it emits, or empty. */
  MONO,
  /** A Reactor {@code Flux}: the items it emits, in order. */
  FLUX,
  /**
   * A Kotlin {@code suspend} function (compiled with a last parameter of type {@code
   * kotlin.coroutines.Continuation}): the value its coroutine resumes with.
   */
  SUSPEND;

  static final String MONO_CLASS = RefusedResultTypes.MONO;
  static final String FLUX_CLASS = RefusedResultTypes.FLUX;
  static final String CONTINUATION_CLASS = "kotlin.coroutines.Continuation";
  static final String UNIT_CLASS = "kotlin.Unit";

  /**
   * The kind of {@code method}'s result.
   *
   * @param where names the method in a message
   * @throws IdempotencyConfigurationException for a deferred type that is not supported
   */
  static ResultKind of(Method method, String where) {
    if (isSuspend(method)) {
      return SUSPEND;
    }
    Class<?> type = method.getReturnType();
    if (CompletionStage.class.isAssignableFrom(type)) {
      return STAGE;
    }
    Set<String> names = supertypes(type);
    if (type.getName().equals(MONO_CLASS)) {
      return MONO;
    }
    if (type.getName().equals(FLUX_CLASS)) {
      return FLUX;
    }
    String refusal = RefusedResultTypes.refusal(type.getName(), names);
    if (refusal != null) {
      throw new IdempotencyConfigurationException(where + ": " + refusal);
    }
    return VALUE;
  }

  /** Whether {@code method} is what kotlinc makes of a {@code suspend fun}. */
  static boolean isSuspend(Method method) {
    Class<?>[] parameters = method.getParameterTypes();
    return parameters.length > 0
        && parameters[parameters.length - 1].getName().equals(CONTINUATION_CLASS);
  }

  /**
   * The declared type of the value the codec records for this kind. A {@code suspend} function's is
   * its continuation's type argument ({@code Continuation<? super T>}), its return type being
   * {@code Object}; one that returns {@code Unit} records nothing, as a {@code void} method does.
   */
  Type valueType(Method method) {
    Type returned = method.getGenericReturnType();
    return switch (this) {
      case VALUE -> returned;
      case STAGE, MONO -> typeArgument(returned);
      case FLUX -> new ListOf(typeArgument(returned));
      case SUSPEND -> {
        Type[] parameters = method.getGenericParameterTypes();
        Type resumed = typeArgument(parameters[parameters.length - 1]);
        if (resumed instanceof WildcardType w) {
          resumed = w.getLowerBounds().length == 1 ? w.getLowerBounds()[0] : w.getUpperBounds()[0];
        }
        yield resumed instanceof Class<?> c && c.getName().equals(UNIT_CLASS)
            ? void.class
            : resumed;
      }
    };
  }

  private static Type typeArgument(Type returnType) {
    if (returnType instanceof ParameterizedType p && p.getActualTypeArguments().length == 1) {
      return p.getActualTypeArguments()[0];
    }
    return Object.class;
  }

  /** Every class and interface {@code type} is, by name. */
  private static Set<String> supertypes(Class<?> type) {
    Set<String> names = new HashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>();
    todo.add(type);
    while (!todo.isEmpty()) {
      Class<?> c = todo.poll();
      if (!names.add(c.getName())) {
        continue;
      }
      if (c.getSuperclass() != null) {
        todo.add(c.getSuperclass());
      }
      todo.addAll(List.of(c.getInterfaces()));
    }
    return names;
  }
}
