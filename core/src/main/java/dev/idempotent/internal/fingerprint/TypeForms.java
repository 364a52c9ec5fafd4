package dev.idempotent.internal.fingerprint;

import dev.idempotent.internal.fingerprint.Form.Kind;
import dev.idempotent.internal.fingerprint.Form.Member;
import java.io.File;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.URI;
import java.net.URL;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Calendar;
import java.util.Collection;
import java.util.Comparator;
import java.util.Currency;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The {@link Form} of each runtime class, decided once per class: which encoding its values get,
 * under which stable label, and for the application's own classes which fields (or record
 * components) are read.
 */
final class TypeForms {
  private static final ClassValue<Form> FORMS =
      new ClassValue<>() {
        @Override
        protected Form computeValue(Class<?> type) {
          return formOf(type);
        }
      };

  private TypeForms() {}

  /** The form of {@code type}'s values. */
  static Form of(Class<?> type) {
    return FORMS.get(type);
  }

  private static Form formOf(Class<?> type) {
    if (type == String.class) {
      return Form.of(Kind.STRING);
    }
    if (type == Boolean.class
        || type == Character.class
        || type == Integer.class
        || type == Long.class
        || type == Short.class
        || type == Byte.class
        || type == BigInteger.class
        || type == AtomicInteger.class
        || type == AtomicLong.class
        || type == AtomicBoolean.class) {
      return Form.labelled(Kind.BOXED, type.getSimpleName());
    }
    if (type == Double.class || type == Float.class) {
      return Form.labelled(Kind.FLOATING, type.getSimpleName());
    }
    if (BigDecimal.class.isAssignableFrom(type)) {
      return Form.of(Kind.DECIMAL);
    }
    if (Enum.class.isAssignableFrom(type)) {
      return Form.of(Kind.ENUM);
    }
    if (type == byte[].class) {
      return Form.of(Kind.BYTES);
    }
    String refusal = UndigestableTypes.refusalOf(type);
    if (refusal != null) {
      return Form.refused(type.getName() + " " + refusal);
    }
    if (type.isArray()) {
      return Form.of(Kind.ARRAY);
    }
    if (ByteBuffer.class.isAssignableFrom(type)) {
      return Form.of(Kind.BYTE_BUFFER);
    }
    if (CharSequence.class.isAssignableFrom(type)) {
      return Form.of(Kind.CHARS);
    }
    if (Buffer.class.isAssignableFrom(type)) {
      return Form.of(Kind.ELEMENT_BUFFER);
    }
    if (type == Optional.class) {
      return Form.of(Kind.OPTIONAL);
    }
    if (type == OptionalInt.class || type == OptionalLong.class || type == OptionalDouble.class) {
      return Form.of(Kind.OPTIONAL_PRIMITIVE);
    }
    if (Set.class.isAssignableFrom(type)) {
      return Form.of(Kind.SET);
    }
    if (Collection.class.isAssignableFrom(type)) {
      boolean unordered =
          PriorityQueue.class.isAssignableFrom(type)
              || PriorityBlockingQueue.class.isAssignableFrom(type)
              || !(List.class.isAssignableFrom(type) || Queue.class.isAssignableFrom(type));
      return Form.of(unordered ? Kind.BAG : Kind.LIST);
    }
    if (Map.class.isAssignableFrom(type)) {
      return Form.of(Kind.MAP);
    }
    if (Map.Entry.class.isAssignableFrom(type)) {
      return Form.of(Kind.ENTRY);
    }
    if (extendsClassNamed(type, "java.sql.Timestamp")) {
      // by name, so that a runtime without the java.sql module never loads it
      return Form.labelled(Kind.TIMESTAMP, "java.sql.Timestamp");
    }
    if (java.util.Date.class.isAssignableFrom(type)) {
      return Form.labelled(Kind.DATE, publicJdkName(type));
    }
    if (Calendar.class.isAssignableFrom(type)) {
      return Form.labelled(Kind.CALENDAR, "java.util.Calendar");
    }
    if (type == Class.class) {
      return Form.of(Kind.TYPE);
    }
    String text = textLabel(type);
    if (text != null) {
      return Form.labelled(Kind.TEXT, text);
    }
    if (type == Object.class) {
      return Form.refused(
          "java.lang.Object has no content: only its identity tells two instances apart");
    }
    if (isJdk(type)) {
      return Form.refused(
          type.getName() + " is a JDK type with no content-based form known to the digest");
    }
    if (type.isRecord()) {
      return recordForm(type);
    }
    return objectForm(type);
  }

  /** The stable label of a JDK value type digested by its canonical text, or null. */
  private static String textLabel(Class<?> type) {
    if (!isJdk(type) && !Path.class.isAssignableFrom(type)) {
      return null;
    }
    String pkg = type.getPackageName();
    if ((pkg.equals("java.time") || pkg.startsWith("java.time."))
        && !Clock.class.isAssignableFrom(type)) {
      return ZoneId.class.isAssignableFrom(type) && type != java.time.ZoneOffset.class
          ? "java.time.ZoneId"
          : publicJdkName(type);
    }
    if (Path.class.isAssignableFrom(type)) {
      return "java.nio.file.Path";
    }
    if (TimeZone.class.isAssignableFrom(type)) {
      return "java.util.TimeZone";
    }
    if (Charset.class.isAssignableFrom(type)) {
      return "java.nio.charset.Charset";
    }
    if (InetAddress.class.isAssignableFrom(type)) {
      return "java.net.InetAddress";
    }
    for (Class<?> c :
        new Class<?>[] {
          UUID.class,
          URI.class,
          URL.class,
          File.class,
          Locale.class,
          Currency.class,
          Pattern.class,
          BitSet.class
        }) {
      if (c == type) {
        return c.getName();
      }
    }
    return null;
  }

  /** A class of the JDK itself: loaded by the boot or platform class loader. */
  static boolean isJdk(Class<?> type) {
    while (type.isArray()) {
      type = type.getComponentType();
    }
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }

  static boolean extendsClassNamed(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  private static String publicJdkName(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (isJdk(c)
          && Modifier.isPublic(c.getModifiers())
          && c.getModule().isExported(c.getPackageName())) {
        return c.getName();
      }
    }
    return type.getName();
  }

  private static Form recordForm(Class<?> type) {
    RecordComponent[] components = type.getRecordComponents();
    Member[] members = new Member[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent rc = components[i];
      Field field = declaredField(type, rc.getName());
      if (field != null && trySetAccessible(field)) {
        members[i] = new Member(rc.getName(), field, null);
      } else if (trySetAccessible(rc.getAccessor())) {
        members[i] = new Member(rc.getName(), null, rc.getAccessor());
      } else {
        return Form.refused(
            type.getName()
                + " is a record whose component "
                + rc.getName()
                + " cannot be read: "
                + openAdvice(type));
      }
    }
    return new Form(Kind.OBJECT, type.getName(), members, null);
  }

  private static Form objectForm(Class<?> type) {
    List<Field> fields = new ArrayList<>();
    for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
      if (isJdk(c) && hasInstanceFields(c)) {
        return Form.refused(
            type.getName()
                + " extends the JDK class "
                + c.getName()
                + ", whose fields cannot be read");
      }
      for (Field f : c.getDeclaredFields()) {
        int modifiers = f.getModifiers();
        if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers)) {
          continue;
        }
        if (!trySetAccessible(f)) {
          return Form.refused(
              type.getName()
                  + " has a field "
                  + c.getName()
                  + "."
                  + f.getName()
                  + " that cannot be read: "
                  + openAdvice(c));
        }
        fields.add(f);
      }
    }
    if (fields.isEmpty()) {
      if (toStringIsObjects(type)) {
        return Form.refused(
            type.getName()
                + " has no fields and no toString of its own: only its identity tells"
                + " two instances apart");
      }
      return Form.labelled(Kind.STATELESS, type.getName());
    }
    fields.sort(
        Comparator.comparing(Field::getName).thenComparing(f -> f.getDeclaringClass().getName()));
    Member[] members = new Member[fields.size()];
    for (int i = 0; i < members.length; i++) {
      Field f = fields.get(i);
      boolean shadowed =
          (i > 0 && fields.get(i - 1).getName().equals(f.getName()))
              || (i + 1 < members.length && fields.get(i + 1).getName().equals(f.getName()));
      members[i] =
          new Member(
              shadowed ? f.getDeclaringClass().getName() + "." + f.getName() : f.getName(),
              f,
              null);
    }
    return new Form(Kind.OBJECT, type.getName(), members, null);
  }

  private static boolean hasInstanceFields(Class<?> type) {
    for (Field f : type.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        return true;
      }
    }
    return false;
  }

  private static boolean toStringIsObjects(Class<?> type) {
    try {
      return type.getMethod("toString").getDeclaringClass() == Object.class;
    } catch (NoSuchMethodException e) {
      return true;
    }
  }

  private static String openAdvice(Class<?> type) {
    return "open package "
        + type.getPackageName()
        + " of "
        + type.getModule()
        + " to "
        + TypeForms.class.getModule();
  }

  private static Field declaredField(Class<?> type, String name) {
    try {
      return type.getDeclaredField(name);
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  private static boolean trySetAccessible(AccessibleObject o) {
    try {
      return o.trySetAccessible();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
