package dev.idempotent.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code idempotent.*} settings a store provider reads to build its store with no code: the
 * entries of {@code idempotent.properties} on the classpath, overridden by system properties of the
 * same names.
 */
public final class StoreSettings {
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private final Map<String, String> values;
  private final Map<String, Object> typed;

  private StoreSettings(Map<String, String> values, Map<String, Object> typed) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    this.typed = Collections.unmodifiableMap(new TreeMap<>(typed));
  }

  /** Written settings by name, as {@code idempotent.properties} and system properties hold them. */
  public static StoreSettings of(Map<String, String> values) {
    return new StoreSettings(values, Map.of());
  }

  /**
   * These settings with {@code typed} values by setting name over them (the Spring Boot starter's
   * bound properties): {@link #value(Setting)} takes a typed value as it is, after its {@link
   * Setting#check check}, and reads a written one only for a setting not given typed. A {@code
   * null} value counts as not given.
   */
  public StoreSettings withTyped(Map<String, ?> typed) {
    Map<String, Object> all = new HashMap<>(this.typed);
    typed.forEach(
        (k, v) -> {
          if (v != null) {
            all.put(k, v);
          }
        });
    return new StoreSettings(values, all);
  }

  /**
   * The value of {@code setting}: given typed, else written (and parsed), else its default (which
   * may be {@code null}).
   *
   * @throws dev.idempotent.IdempotencyConfigurationException naming the setting when its value is
   *     bad
   */
  public <T> T value(Setting<T> setting) {
    Object v = typed.get(setting.name());
    if (v != null) {
      return setting.check(v);
    }
    Optional<String> written = get(setting.name());
    return written.isPresent() ? setting.parse(written.get()) : setting.defaultValue();
  }

  /** Whether {@code setting} is given, typed or written. */
  public boolean isSet(Setting<?> setting) {
    return typed.containsKey(setting.name()) || get(setting.name()).isPresent();
  }

  /**
   * The value of {@code name} (for example {@code idempotent.redisson.address}), trimmed, if set
   * and not blank.
   */
  public Optional<String> get(String name) {
    String v = values.get(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }

  /**
   * The value of {@code name}.
   *
   * @throws IllegalArgumentException naming the missing setting and where to set it
   */
  public String require(String name) {
    return get(name)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "missing setting "
                        + name
                        + ": set it in idempotent.properties or as -D"
                        + name
                        + "=..."));
  }

  /**
   * A duration setting ({@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 7d} or
   * ISO-8601).
   */
  public Optional<Duration> duration(String name) {
    return get(name)
        .map(
            v -> {
              try {
                return parseDuration(v);
              } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("setting " + name + ": " + e.getMessage(), e);
              }
            });
  }

  /**
   * Reads a positive duration written {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code
   * 7d} or ISO-8601 ({@code PT10M}); surrounding blanks are ignored.
   *
   * @throws IllegalArgumentException naming the value and the accepted forms, also for zero or
   *     negative values
   */
  public static Duration parseDuration(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "empty duration: write 500ms, 30s, 10m, 24h, 7d or ISO-8601 like PT10M");
    }
    String t = text.trim();
    Duration d;
    Matcher m = SHORT_DURATION.matcher(t);
    if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw unreadableDuration(t);
      }
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          };
    } else {
      try {
        d = Duration.parse(t);
      } catch (DateTimeParseException e) {
        throw unreadableDuration(t);
      }
    }
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException("duration '" + t + "' must be positive");
    }
    return d;
  }

  private static IllegalArgumentException unreadableDuration(String t) {
    return new IllegalArgumentException(
        "cannot read duration '" + t + "': write 500ms, 30s, 10m, 24h, 7d or ISO-8601 like PT10M");
  }

  /** All settings whose names start with {@code prefix}. */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    values.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k, v);
          }
        });
    return out;
  }

  /** Names only: values may hold passwords. */
  @Override
  public String toString() {
    Set<String> names = new TreeSet<>(values.keySet());
    names.addAll(typed.keySet());
    return "StoreSettings" + names;
  }
}
