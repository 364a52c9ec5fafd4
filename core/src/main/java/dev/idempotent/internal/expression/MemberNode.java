package dev.idempotent.internal.expression;

import java.util.function.Function;

/**
 * {@code receiver.name}, {@code receiver.name()} or their {@code ?.} forms, with a monomorphic
 * inline cache: the reader for the last runtime class seen, falling back to {@link
 * MemberResolver}'s per-class maps.
 */
final class MemberNode extends Node {
  private final Node receiver;
  private final String name;
  private final boolean methodCall;
  private final boolean nullSafe;
  private final int operatorColumn;

  /**
   * The last reader used. Racy on purpose: {@link MemberReader} is immutable (final fields), so a
   * thread sees either null, an older reader or a newer one, each complete; a stale one only costs
   * a lookup.
   */
  private MemberReader cached;

  MemberNode(
      String source,
      int start,
      int end,
      Node receiver,
      String name,
      boolean methodCall,
      boolean nullSafe,
      int operatorColumn) {
    super(source, start, end);
    this.receiver = receiver;
    this.name = name;
    this.methodCall = methodCall;
    this.nullSafe = nullSafe;
    this.operatorColumn = operatorColumn;
  }

  @Override
  Object evaluate(Object[] arguments) {
    Object target = receiver.evaluate(arguments);
    if (target == null) {
      if (nullSafe) {
        return null;
      }
      throw new ExpressionEvaluationException(
          "'"
              + receiver.text
              + "' is null at column "
              + operatorColumn
              + "; use ?. to allow null (in '"
              + source
              + "')");
    }
    MemberReader reader = cached;
    if (reader == null || reader.type() != target.getClass()) {
      reader = resolve(target.getClass());
    }
    Function<Object, Object> function = reader.function();
    if (function == null) {
      throw missing(reader);
    }
    try {
      return function.apply(target);
    } catch (Exception e) {
      throw new ExpressionEvaluationException(
          "reading '" + text + "'" + at(operatorColumn) + " threw " + e, e);
    }
  }

  private MemberReader resolve(Class<?> type) {
    MemberReader reader =
        methodCall ? MemberResolver.method(type, name) : MemberResolver.property(type, name);
    cached = reader;
    return reader;
  }

  private ExpressionTypeException missing(MemberReader reader) {
    String what = methodCall ? "method '" + name + "()'" : "property '" + name + "'";
    return new ExpressionTypeException(
        what
            + " "
            + reader.problem()
            + at(operatorColumn)
            + (reader.hint() == null ? "" : "; " + reader.hint()));
  }
}
