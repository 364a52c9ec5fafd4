package dev.idempotent.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
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

  private StoreSettings(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  public static StoreSettings of(Map<String, String> values) {
    return new StoreSettings(values);
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
    return "StoreSettings" + values.keySet();
  }
}
