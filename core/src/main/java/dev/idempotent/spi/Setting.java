package dev.idempotent.spi;

import dev.idempotent.IdempotencyConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * One {@code idempotent.*} setting, defined once: its name, type, default, check and description.
 * Everything else follows from the definition: a store provider reads its value with {@link
 * StoreSettings#value(Setting)} (parsed from {@code idempotent.properties} or a system property, or
 * given typed by the Spring Boot starter), and the starter's typed properties, their generated
 * metadata and the reference table of {@code docs/configuration.md} are checked against it by
 * tests.
 *
 * <pre>{@code
 * static final Setting<Duration> TIMEOUT =
 *     Setting.duration("idempotent.redisson.timeout", Duration.ofSeconds(3),
 *         "Command and connect timeout.");
 * }</pre>
 *
 * <p>A bad value, written or typed, is an {@link IdempotencyConfigurationException} whose message
 * names the setting, the value (as {@link #shownAs} or {@link #secret()} say), what is wrong and
 * what to write instead.
 *
 * @param <T> the type of the value
 */
public final class Setting<T> {
  private final String name;
  private final Class<T> type;
  private final T defaultValue;
  private final String description;
  private final Function<String, T> parser;
  private final String expected;
  private final List<Check<? super T>> checks;
  private final UnaryOperator<String> shown;

  private record Check<V>(Predicate<V> ok, String problem) {}

  private Setting(
      String name,
      Class<T> type,
      T defaultValue,
      String description,
      Function<String, T> parser,
      String expected,
      List<Check<? super T>> checks,
      UnaryOperator<String> shown) {
    if (name == null || !name.matches("idempotent(\\.[a-z][a-z0-9-]*)+")) {
      throw new IllegalArgumentException(
          "setting name '" + name + "': write idempotent.<lower-case words joined by - and .>");
    }
    this.name = name;
    this.type = Objects.requireNonNull(type, "type");
    this.description = Objects.requireNonNull(description, "description").strip();
    this.parser = parser;
    this.expected = expected;
    this.checks = List.copyOf(checks);
    this.shown = shown;
    this.defaultValue = defaultValue;
    if (defaultValue != null && problem(defaultValue) != null) {
      throw new IllegalArgumentException(
          name + ": the default " + defaultValue + " " + problem(defaultValue));
    }
  }

  /**
   * A positive duration, written {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 7d}
   * or ISO-8601.
   */
  public static Setting<Duration> duration(String name, Duration defaultValue, String description) {
    return new Setting<>(
        name,
        Duration.class,
        defaultValue,
        description,
        Setting::durationOrZero,
        "a positive duration such as 500ms, 30s, 10m, 24h or 7d",
        List.of(new Check<>(d -> !d.isZero() && !d.isNegative(), "is not positive")),
        UnaryOperator.identity());
  }

  /** A whole number from {@code min} to {@code max}. */
  public static Setting<Integer> integer(
      String name, Integer defaultValue, int min, int max, String description) {
    return new Setting<>(
        name,
        Integer.class,
        defaultValue,
        description,
        s -> Integer.valueOf(s.replace("_", "")),
        "a whole number from " + min + " to " + max,
        List.of(new Check<>(n -> n >= min && n <= max, "is out of range")),
        UnaryOperator.identity());
  }

  /** A whole number from {@code min} to {@code max}, as a {@code long}. */
  public static Setting<Long> longInteger(
      String name, Long defaultValue, long min, long max, String description) {
    return new Setting<>(
        name,
        Long.class,
        defaultValue,
        description,
        s -> Long.valueOf(s.replace("_", "")),
        "a whole number from " + min + " to " + max,
        List.of(new Check<>(n -> n >= min && n <= max, "is out of range")),
        UnaryOperator.identity());
  }

  /** {@code true} or {@code false}. */
  public static Setting<Boolean> flag(String name, Boolean defaultValue, String description) {
    return new Setting<>(
        name,
        Boolean.class,
        defaultValue,
        description,
        s -> {
          switch (s.toLowerCase(Locale.ROOT)) {
            case "true":
              return true;
            case "false":
              return false;
            default:
              throw new IllegalArgumentException(s);
          }
        },
        "true or false",
        List.of(),
        UnaryOperator.identity());
  }

  /** Text; {@code null} as the default means none. */
  public static Setting<String> text(String name, String defaultValue, String description) {
    return new Setting<>(
        name,
        String.class,
        defaultValue,
        description,
        s -> s,
        null,
        List.of(),
        UnaryOperator.identity());
  }

  /** Text items separated by commas (a typed list in Spring Boot). */
  @SuppressWarnings("unchecked")
  public static Setting<List<String>> list(String name, String description) {
    Class<List<String>> type = (Class<List<String>>) (Class<?>) List.class;
    return new Setting<>(
        name,
        type,
        List.of(),
        description,
        s -> Arrays.stream(s.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList(),
        "items separated by commas",
        List.of(
            new Check<>(
                l -> l.stream().allMatch(x -> x instanceof String), "is not a list of text")),
        UnaryOperator.identity());
  }

  /**
   * One of the constants of {@code type}, written in lower case with {@code -} for {@code _}
   * ({@code FAIL_OPEN} is {@code fail-open}); any case is read.
   */
  public static <E extends Enum<E>> Setting<E> choice(
      String name, Class<E> type, E defaultValue, String description) {
    return new Setting<>(
        name,
        type,
        defaultValue,
        description,
        s -> {
          String wanted = s.replace('-', '_').toUpperCase(Locale.ROOT);
          for (E e : type.getEnumConstants()) {
            if (e.name().equals(wanted)) {
              return e;
            }
          }
          throw new IllegalArgumentException(s);
        },
        "one of "
            + Arrays.stream(type.getEnumConstants())
                .map(Setting::spelling)
                .collect(Collectors.joining(", ")),
        List.of(),
        UnaryOperator.identity());
  }

  private static Duration durationOrZero(String text) {
    try {
      return StoreSettings.parseDuration(text);
    } catch (IllegalArgumentException e) {
      if (String.valueOf(e.getMessage()).contains("must be positive")) {
        return Duration.ZERO; // readable, and refused by the check with the written text
      }
      throw e;
    }
  }

  /**
   * This setting with one more check of its value; {@code problem} says what is wrong with a value
   * that fails it, as in {@code "is longer than 1h"}.
   */
  public Setting<T> requiring(Predicate<? super T> ok, String problem) {
    List<Check<? super T>> all = new ArrayList<>(checks);
    all.add(new Check<>(ok, problem));
    return new Setting<>(name, type, defaultValue, description, parser, expected, all, shown);
  }

  /** What is wrong with {@code value}, or {@code null}. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private String problem(T value) {
    for (Check c : checks) {
      if (!c.ok().test(value)) {
        return c.problem();
      }
    }
    return null;
  }

  /** This setting, whose value (a password) never appears in a message: it is shown as ***. */
  public Setting<T> secret() {
    return shownAs(v -> "***");
  }

  /**
   * This setting, whose value appears in messages as {@code mask} makes it, for a value that may
   * hold a secret (an address with credentials: {@code redis://***@host}).
   */
  public Setting<T> shownAs(UnaryOperator<String> mask) {
    return new Setting<>(name, type, defaultValue, description, parser, expected, checks, mask);
  }

  /** The full name, e.g. {@code idempotent.redisson.timeout}. */
  public String name() {
    return name;
  }

  /** The type of the value: {@link Duration}, {@link Integer}, an enum, {@link String}... */
  public Class<T> type() {
    return type;
  }

  /** The value when the setting is not given, or {@code null} for none. */
  public T defaultValue() {
    return defaultValue;
  }

  /** What the setting does, in one or two sentences (the text the docs and IDEs show). */
  public String description() {
    return description;
  }

  /** {@code value} as messages show it (a secret as ***). */
  public String shown(String value) {
    return shown.apply(value);
  }

  /** The default as it would be written in {@code idempotent.properties}, {@code ""} for none. */
  public String defaultText() {
    return defaultValue == null ? "" : spelling(defaultValue);
  }

  /**
   * Reads a written value ({@code idempotent.properties}, a system property).
   *
   * @throws IdempotencyConfigurationException naming this setting, the value and what to write
   */
  public T parse(String text) {
    String t = text == null ? "" : text.strip();
    T value;
    try {
      value = parser.apply(t);
    } catch (RuntimeException e) {
      throw bad(t, "is not " + expected);
    }
    String problem = problem(value);
    if (problem != null) {
      throw bad(t, problem);
    }
    return value;
  }

  /**
   * Checks a typed value (from the Spring Boot starter's properties) and returns it.
   *
   * @throws IdempotencyConfigurationException naming this setting, the value and what is wrong
   */
  public T check(Object value) {
    if (value == null) {
      return null;
    }
    if (!type.isInstance(value)) {
      throw new IdempotencyConfigurationException(
          name
              + " is given as a "
              + value.getClass().getName()
              + ", but the setting is a "
              + type.getSimpleName()
              + (expected == null ? "" : ": give " + expected));
    }
    T v = type.cast(value);
    String problem = problem(v);
    if (problem != null) {
      throw bad(spelling(v), problem);
    }
    return v;
  }

  private IdempotencyConfigurationException bad(String value, String what) {
    return new IdempotencyConfigurationException(
        name
            + "="
            + shown.apply(value)
            + " "
            + what
            + (expected == null || what.equals("is not " + expected) ? "" : ": write " + expected)
            + (defaultValue == null ? "" : " (default " + defaultText() + ")"));
  }

  /**
   * A value as it is written in {@code idempotent.properties}: durations in their largest exact
   * unit up to hours ({@code 30s}, {@code 24h}), enum constants in lower case with {@code -}, lists
   * joined with commas.
   */
  public static String spelling(Object value) {
    if (value instanceof Duration d) {
      long ms = d.toMillis();
      if (ms == 0) {
        return "0s";
      } else if (ms % 3_600_000L == 0) {
        return ms / 3_600_000L + "h";
      } else if (ms % 60_000L == 0) {
        return ms / 60_000L + "m";
      } else if (ms % 1000 == 0) {
        return ms / 1000 + "s";
      }
      return ms + "ms";
    }
    if (value instanceof Enum<?> e) {
      return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
    if (value instanceof List<?> l) {
      return l.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    return String.valueOf(value);
  }

  /** The name and type; never a value. */
  @Override
  public String toString() {
    return name + " (" + type.getSimpleName() + ")";
  }
}
