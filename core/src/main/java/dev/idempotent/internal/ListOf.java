package dev.idempotent.internal;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;

/** {@code List<E>}: what the items of a {@code Flux<E>} are recorded as. */
public record ListOf(Type element) implements ParameterizedType {
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
