package dev.idempotent.internal.aspect;

import dev.idempotent.IdempotencyConfigurationException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * How an annotated method's result arrives, and so how it is recorded: at once, as a {@code
 * CompletionStage}, or as a Reactor {@code Mono} or {@code Flux}. A deferred type the library
 * cannot record faithfully is refused (the container object itself is never an outcome).
 */
enum ResultKind {
  /** The value itself (or {@code void}). */
  VALUE,
  /** A {@code CompletionStage}: the value it completes with. */
  STAGE,
  /** A Reactor {@code Mono}: the value it emits, or empty. */
  MONO,
  /** A Reactor {@code Flux}: the items it emits, in order. */
  FLUX;

  static final String MONO_CLASS = "reactor.core.publisher.Mono";
  static final String FLUX_CLASS = "reactor.core.publisher.Flux";

  /** Deferred results whose outcome is not a value: refused, with what to return instead. */
  private static final List<String[]> REFUSED =
      List.of(
          new String[] {"org.reactivestreams.Publisher", "return a Mono or a Flux"},
          new String[] {"java.util.concurrent.Flow$Publisher", "return a Mono or a Flux"},
          new String[] {"kotlinx.coroutines.flow.Flow", "return a List from a suspend function"},
          new String[] {"java.util.stream.BaseStream", "return a List"},
          new String[] {"java.util.Iterator", "return a List"},
          new String[] {"java.util.Spliterator", "return a List"},
          new String[] {"java.util.concurrent.Future", "return a CompletionStage"},
          new String[] {"io.reactivex.rxjava3.core.Single", "return a Mono"},
          new String[] {"io.reactivex.rxjava3.core.Maybe", "return a Mono"},
          new String[] {"io.reactivex.rxjava3.core.Observable", "return a Flux"},
          new String[] {"io.reactivex.rxjava3.core.Completable", "return a Mono<Void>"});

  /**
   * The kind of {@code method}'s result.
   *
   * @param where names the method in a message
   * @throws IdempotencyConfigurationException for a deferred type that is not supported
   */
  static ResultKind of(Method method, String where) {
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
    for (String[] refused : REFUSED) {
      if (names.contains(refused[0])) {
        throw new IdempotencyConfigurationException(
            where
                + ": its result type "
                + type.getName()
                + " is a deferred or one-shot container ("
                + refused[0]
                + ") whose outcome cannot be recorded faithfully, so it is refused rather than"
                + " recorded as an object; "
                + refused[1]
                + " (supported: any value, CompletionStage, reactor Mono and Flux)");
      }
    }
    return VALUE;
  }

  /** The declared type of the value the codec records for this kind. */
  Type valueType(Method method) {
    Type returned = method.getGenericReturnType();
    return switch (this) {
      case VALUE -> returned;
      case STAGE, MONO -> typeArgument(returned);
      case FLUX -> new ListOf(typeArgument(returned));
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

  /** {@code List<E>}: what the items of a {@code Flux<E>} are recorded as. */
  record ListOf(Type element) implements ParameterizedType {
    @Override
    public Type[] getActualTypeArguments() {
      return new Type[] {element};
    }

    @Override
    public Type getRawType() {
      return List.class;
    }

    @Override
    public Type getOwnerType() {
      return null;
    }

    @Override
    public String getTypeName() {
      return "java.util.List<" + element.getTypeName() + ">";
    }
  }
}
