package dev.idempotent.internal.expression;

import java.util.function.Function;

/**
 * How to read one property or call one no-argument method on one runtime class, resolved once and
 * then cached: immutable, so a node may publish it through a plain field. When nothing is readable
 * {@code function} is null, {@code problem} says what is wrong ("not found on com.acme.Order") and
 * {@code hint} how to fix it (or null).
 */
record MemberReader(Class<?> type, Function<Object, Object> function, String problem, String hint) {
  static MemberReader of(Class<?> type, Function<Object, Object> function) {
    return new MemberReader(type, function, null, null);
  }

  static MemberReader missing(Class<?> type, String problem, String hint) {
    return new MemberReader(type, null, problem, hint);
  }
}
