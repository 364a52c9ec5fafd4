package dev.idempotent.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses {@code 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 7d} and ISO-8601 durations. */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private Durations() {}

  /**
   * @throws IllegalArgumentException naming the value and the accepted forms, also for zero or negative values
   */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("empty duration: write 500ms, 30s, 10m, 24h, 7d or ISO-8601 like PT10M");
    }
    String t = text.trim();
    Duration d;
    Matcher m = SHORT.matcher(t);
    if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw bad(t);
      }
      d = switch (m.group(2)) {
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
        throw bad(t);
      }
    }
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException("duration '" + t + "' must be positive");
    }
    return d;
  }

  private static IllegalArgumentException bad(String t) {
    return new IllegalArgumentException(
        "cannot read duration '" + t + "': write 500ms, 30s, 10m, 24h, 7d or ISO-8601 like PT10M");
  }
}
