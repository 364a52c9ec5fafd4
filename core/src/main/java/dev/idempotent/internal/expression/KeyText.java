package dev.idempotent.internal.expression;

import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.Calendar;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * The text of a value that becomes (part of) a key: its {@code toString()}, except that dates and
 * calendars render as their instant in ISO-8601 (never in the host's time zone), and values whose
 * text is their identity are refused with an {@link ExpressionTypeException}: a class that does not
 * override {@code Object.toString} ({@code Order@3b764bce} would make a new key per instance, so
 * nothing would ever be de-duplicated), arrays, lambdas and proxies, and collections, maps or
 * optionals holding such values. Checked once per class.
 */
final class KeyText {
  private static final int MAX_NESTING = 8;

  private enum Kind {
    PLAIN,
    DATE,
    TIMESTAMP,
    CALENDAR,
    CONTAINER,
    REFUSED
  }

  private record Form(Kind kind, String refusal) {}

  private static final ClassValue<Form> FORMS =
      new ClassValue<>() {
        @Override
        protected Form computeValue(Class<?> type) {
          return formOf(type);
        }
      };

  private KeyText() {}

  /**
   * {@code value} as it may be concatenated: itself, or its ISO text for a date.
   *
   * @throws ExpressionTypeException when its text would be its identity
   */
  static Object checked(Object value, Node part) {
    if (value == null
        || value instanceof String
        || value instanceof Integer
        || value instanceof Long) {
      return value;
    }
    Form form = FORMS.get(value.getClass());
    return form.kind == Kind.PLAIN ? value : convert(value, form, part);
  }

  /** The text of a whole key; null stays null. */
  static String render(Object value, Node part) {
    Object checked = checked(value, part);
    return checked == null ? null : checked.toString();
  }

  private static Object convert(Object value, Form form, Node part) {
    switch (form.kind) {
      case DATE:
        return Instant.ofEpochMilli(((java.util.Date) value).getTime()).toString();
      case TIMESTAMP:
        return ((java.sql.Timestamp) value).toInstant().toString();
      case CALENDAR:
        return Instant.ofEpochMilli(((Calendar) value).getTimeInMillis()).toString();
      case CONTAINER:
        checkElements(value, part, 0);
        return value;
      default:
        throw refused(part, value.getClass(), form.refusal);
    }
  }

  private static void checkElements(Object container, Node part, int nesting) {
    if (nesting > MAX_NESTING) {
      return;
    }
    Iterable<?> elements;
    if (container instanceof Map<?, ?> map) {
      checkElements(map.keySet(), part, nesting + 1);
      elements = map.values();
    } else if (container instanceof Optional<?> optional) {
      elements = optional.stream().toList();
    } else {
      elements = (Collection<?>) container;
    }
    for (Object element : elements) {
      if (element == null || element instanceof String || element instanceof Number) {
        continue;
      }
      Form form = FORMS.get(element.getClass());
      if (form.kind == Kind.CONTAINER) {
        checkElements(element, part, nesting + 1);
      } else if (form.kind != Kind.PLAIN) {
        String why = form.kind == Kind.REFUSED ? form.refusal : "renders in the host's time zone";
        throw refused(
            part, element.getClass(), why + " (inside a " + container.getClass().getName() + ")");
      }
    }
  }

  private static ExpressionTypeException refused(Node part, Class<?> type, String reason) {
    return new ExpressionTypeException(
        "'"
            + part.text
            + "'"
            + part.at(part.column)
            + " gives a "
            + type.getName()
            + ", which cannot be a key: "
            + reason
            + "; read a property that identifies it (for example '"
            + part.text
            + ".id')");
  }

  /** By name, so that a runtime without the java.sql module never loads it. */
  private static boolean isTimestamp(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals("java.sql.Timestamp")) {
        return true;
      }
    }
    return false;
  }

  private static Form formOf(Class<?> type) {
    if (type.isArray()) {
      return new Form(Kind.REFUSED, "the text of an array is its identity; index it, as [0]");
    }
    if (type.isHidden() || Proxy.isProxyClass(type) || type.isSynthetic()) {
      return new Form(Kind.REFUSED, "a lambda, proxy or generated class has no text of its own");
    }
    if (isTimestamp(type)) {
      return new Form(Kind.TIMESTAMP, null);
    }
    if (java.util.Date.class.isAssignableFrom(type)) {
      return new Form(Kind.DATE, null);
    }
    if (Calendar.class.isAssignableFrom(type)) {
      return new Form(Kind.CALENDAR, null);
    }
    try {
      if (type.getMethod("toString").getDeclaringClass() == Object.class) {
        return new Form(
            Kind.REFUSED, "it does not override Object.toString, so its text is its identity");
      }
    } catch (NoSuchMethodException e) {
      return new Form(Kind.REFUSED, "it has no toString");
    }
    if (Collection.class.isAssignableFrom(type)
        || Map.class.isAssignableFrom(type)
        || type == Optional.class) {
      return new Form(Kind.CONTAINER, null);
    }
    return new Form(Kind.PLAIN, null);
  }
}
