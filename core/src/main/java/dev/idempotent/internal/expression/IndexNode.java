package dev.idempotent.internal.expression;

import java.lang.reflect.Array;
import java.util.List;
import java.util.Map;

/**
 * {@code receiver[index]} (or {@code receiver?.[index]}) on an array, a {@link List} or a {@link
 * Map}.
 */
final class IndexNode extends Node {
  private final Node receiver;
  private final Node index;
  private final boolean nullSafe;
  private final int operatorColumn;

  IndexNode(
      String source,
      int start,
      int end,
      Node receiver,
      Node index,
      boolean nullSafe,
      int operatorColumn) {
    super(source, start, end);
    this.receiver = receiver;
    this.index = index;
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
              + "; use ?.[ to allow null (in '"
              + source
              + "')");
    }
    Object key = index.evaluate(arguments);
    if (target instanceof Map<?, ?> map) {
      try {
        return map.get(key);
      } catch (RuntimeException e) {
        throw new ExpressionEvaluationException(
            "reading '" + text + "'" + at(operatorColumn) + " threw " + e, e);
      }
    }
    if (target instanceof List<?> list) {
      int i = position(key, list.size(), "size");
      return list.get(i);
    }
    if (target instanceof Object[] array) {
      return array[position(key, array.length, "length")];
    }
    if (target.getClass().isArray()) {
      return Array.get(target, position(key, Array.getLength(target), "length"));
    }
    throw new ExpressionTypeException(
        "cannot index '"
            + receiver.text
            + "', a "
            + target.getClass().getName()
            + at(operatorColumn)
            + "; [...] works on arrays, Lists and Maps");
  }

  private int position(Object key, int size, String sizeName) {
    long i;
    if (key instanceof Integer
        || key instanceof Long
        || key instanceof Short
        || key instanceof Byte) {
      i = ((Number) key).longValue();
    } else if (key == null) {
      throw new ExpressionEvaluationException(
          "index '"
              + index.text
              + "' of '"
              + receiver.text
              + "' is null"
              + at(operatorColumn)
              + "; arrays and Lists need an integer index");
    } else {
      throw new ExpressionTypeException(
          "index '"
              + index.text
              + "' of '"
              + receiver.text
              + "' is a "
              + key.getClass().getName()
              + at(operatorColumn)
              + "; arrays and Lists need an integer index");
    }
    if (i < 0 || i >= size) {
      throw new ExpressionEvaluationException(
          "index "
              + i
              + " is out of range for '"
              + receiver.text
              + "' ("
              + sizeName
              + " "
              + size
              + ")"
              + at(operatorColumn));
    }
    return (int) i;
  }
}
