package dev.idempotent.internal.expression;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.net.URI;
import java.util.Calendar;
import java.util.Collection;
import java.util.Currency;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * Which no-argument methods an expression may call, so that evaluating a key never changes an
 * argument and never reaches class loaders or reflection.
 *
 * <ul>
 *   <li>On the application's own classes: getters ({@code getX()}, {@code isX()} returning
 *       boolean), record accessors, and {@code toString()} where the class declares its own.
 *   <li>On JDK types, only this list: {@code CharSequence}/{@code String} {@code length isEmpty
 *       isBlank trim strip stripLeading stripTrailing toUpperCase toLowerCase} (the last two in the
 *       root locale, so the key does not depend on the host's locale); {@code Number}, {@code
 *       Boolean}, {@code Character} {@code xxxValue()}; {@code BigDecimal} {@code toPlainString
 *       stripTrailingZeros scale precision signum unscaledValue}; {@code Enum} {@code name
 *       ordinal}; {@code Optional} {@code get isPresent isEmpty orElseThrow} (and {@code getAsInt},
 *       {@code getAsLong}, {@code getAsDouble}); {@code Collection} and {@code Map} {@code size
 *       isEmpty}; {@code Map.Entry} {@code getKey getValue}; {@code java.time} values: their
 *       getters and {@code toEpochMilli toEpochDay toEpochSecond toLocalDate toLocalTime
 *       toLocalDateTime toInstant}; {@code URI} getters; {@code Locale} {@code getLanguage
 *       getCountry getVariant getScript toLanguageTag}; {@code Currency} {@code getCurrencyCode};
 *       {@code Date} {@code getTime toInstant} ({@code Timestamp} {@code getNanos}); and {@code
 *       toString()} of JDK value types other than dates.
 *   <li>Never: {@code getClass hashCode clone notify notifyAll wait finalize}.
 * </ul>
 */
final class ReadOnlyCalls {
  private static final Set<String> NEVER =
      Set.of("getClass", "hashCode", "clone", "notify", "notifyAll", "wait", "finalize");
  private static final Set<String> CHARS =
      Set.of(
          "length",
          "isEmpty",
          "isBlank",
          "trim",
          "strip",
          "stripLeading",
          "stripTrailing",
          "toUpperCase",
          "toLowerCase");
  private static final Set<String> NUMBERS =
      Set.of(
          "intValue",
          "longValue",
          "doubleValue",
          "floatValue",
          "shortValue",
          "byteValue",
          "booleanValue",
          "charValue");
  private static final Set<String> DECIMALS =
      Set.of(
          "toPlainString", "stripTrailingZeros", "scale", "precision", "signum", "unscaledValue");
  private static final Set<String> ENUMS = Set.of("name", "ordinal");
  private static final Set<String> OPTIONALS =
      Set.of("get", "isPresent", "isEmpty", "orElseThrow", "getAsInt", "getAsLong", "getAsDouble");
  private static final Set<String> SIZES = Set.of("size", "isEmpty");
  private static final Set<String> ENTRIES = Set.of("getKey", "getValue");
  private static final Set<String> TIMES =
      Set.of(
          "toEpochMilli",
          "toEpochDay",
          "toEpochSecond",
          "toLocalDate",
          "toLocalTime",
          "toLocalDateTime",
          "toInstant");
  private static final Set<String> LOCALES =
      Set.of("getLanguage", "getCountry", "getVariant", "getScript", "toLanguageTag");
  private static final Set<String> DATES = Set.of("getTime", "toInstant", "getNanos");

  /** The hint every refusal ends with. */
  static final String ALLOWED =
      "an expression may call getters (getX(), isX()), record accessors and the"
          + " read-only methods of value types listed in the README (\"Key expressions\")";

  private ReadOnlyCalls() {}

  /** Null when {@code method} may be called on values of {@code type}; otherwise why not. */
  static String refusal(Class<?> type, Method method) {
    String name = method.getName();
    if (NEVER.contains(name)) {
      return name + "() is not allowed";
    }
    Class<?> owner = method.getDeclaringClass();
    if (name.equals("toString")) {
      if (owner == Object.class) {
        return "toString() of "
            + type.getName()
            + " is Object's: its text is the identity of the instance";
      }
      if (java.util.Date.class.isAssignableFrom(type) || Calendar.class.isAssignableFrom(type)) {
        return "toString() of "
            + type.getName()
            + " depends on the time zone; use .time or .toInstant()";
      }
      return null;
    }
    if (!isJdk(owner)) {
      if (isGetter(method) || isRecordAccessor(type, method)) {
        return null;
      }
      return name + "() is neither a getter nor a record accessor";
    }
    return allowedOnJdkType(type, name, method)
        ? null
        : name
            + "() of "
            + owner.getName()
            + " is not one of the read-only methods an expression may call";
  }

  private static boolean allowedOnJdkType(Class<?> type, String name, Method method) {
    if (CharSequence.class.isAssignableFrom(type) && CHARS.contains(name)) {
      return true;
    }
    if ((Number.class.isAssignableFrom(type) || type == Boolean.class || type == Character.class)
        && NUMBERS.contains(name)) {
      return true;
    }
    if (BigDecimal.class.isAssignableFrom(type) && DECIMALS.contains(name)) {
      return true;
    }
    if (Enum.class.isAssignableFrom(type) && ENUMS.contains(name)) {
      return true;
    }
    if ((type == Optional.class
            || type == OptionalInt.class
            || type == OptionalLong.class
            || type == OptionalDouble.class)
        && OPTIONALS.contains(name)) {
      return true;
    }
    if ((Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type))
        && SIZES.contains(name)) {
      return true;
    }
    if (Map.Entry.class.isAssignableFrom(type) && ENTRIES.contains(name)) {
      return true;
    }
    String pkg = type.getPackageName();
    if ((pkg.equals("java.time") || pkg.startsWith("java.time."))
        && !java.time.Clock.class.isAssignableFrom(type)
        && (isGetter(method) || TIMES.contains(name))) {
      return true;
    }
    if (type == URI.class && isGetter(method)) {
      return true;
    }
    if (type == Locale.class && LOCALES.contains(name)) {
      return true;
    }
    if (type == Currency.class && name.equals("getCurrencyCode")) {
      return true;
    }
    if (type == UUID.class && (name.equals("version") || name.equals("variant"))) {
      return true;
    }
    return java.util.Date.class.isAssignableFrom(type) && DATES.contains(name);
  }

  static boolean isGetter(Method method) {
    String name = method.getName();
    Class<?> returns = method.getReturnType();
    if (name.startsWith("get") && name.length() > 3) {
      return returns != void.class;
    }
    return name.startsWith("is")
        && name.length() > 2
        && (returns == boolean.class || returns == Boolean.class);
  }

  private static boolean isRecordAccessor(Class<?> type, Method method) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.isRecord()) {
        for (RecordComponent component : c.getRecordComponents()) {
          if (component.getName().equals(method.getName())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** A class of the JDK itself: loaded by the boot or platform class loader. */
  static boolean isJdk(Class<?> type) {
    while (type.isArray()) {
      type = type.getComponentType();
    }
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }
}
