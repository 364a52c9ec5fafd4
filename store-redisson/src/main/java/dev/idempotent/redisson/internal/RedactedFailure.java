package dev.idempotent.redisson.internal;

import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.spi.RecordKey;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failed Redis command as the store reports it: an {@link IdempotencyStoreException} whose
 * message names the operation, the record's scope and redacted key, and each Redisson exception of
 * the cause chain by type and description, with the command's arguments left out. Redisson's
 * messages list every argument ({@code command: (EVALSHA), params: [sha, 1,
 * idem:{…}Ab3dE5gH7jK:payments:card=4111…, …]}), and a record name holds the whole key, so the
 * original exceptions are not kept as causes; only an interrupt is, as a fresh {@link
 * InterruptedException}, so that the caller can tell an interrupt from an outage. The exception's
 * own stack trace is the caller's (Redisson builds its exceptions on its I/O threads, where the
 * stack says little).
 */
public final class RedactedFailure {
  /** Where Redisson starts listing a command and its arguments. */
  private static final List<String> ARGUMENT_MARKERS =
      List.of("command: (", "params:", "commanddata", "commandsdata");

  /**
   * Redisson's own closing text after the arguments of a command that got no connection in time.
   */
  private static final Pattern CLIENT_AT_END =
      Pattern.compile("Redis client: \\[addr=([^\\[\\]\\s,]+)]\\s*$");

  private static final Pattern RETRIES_AT_END =
      Pattern.compile("after (\\d+) of (\\d+) retry attempts\\s*$");
  private static final int MAX_CAUSES = 8;
  private static final int SHORTEST_REPLACED = 6;

  private RedactedFailure() {}

  /**
   * @param operation what the store was doing, for example {@code COMPLETE}
   * @param key the record's key
   * @param sent every text the command carried that holds the key (record name, channel names, the
   *     key)
   * @param failure what Redisson threw
   */
  public static IdempotencyStoreException of(
      String operation, RecordKey key, List<String> sent, Throwable failure) {
    StringBuilder message = new StringBuilder("Redis ").append(operation).append(" failed: ");
    InterruptedException interrupt = null;
    int depth = 0;
    for (Throwable t = failure;
        t != null && depth < MAX_CAUSES;
        t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InterruptedException && interrupt == null) {
        interrupt = new InterruptedException("the calling thread was interrupted");
        interrupt.setStackTrace(t.getStackTrace());
      }
      if (depth++ > 0) {
        message.append("; cause ");
      }
      message.append(t.getClass().getSimpleName());
      String text = describe(t.getMessage(), sent);
      if (!text.isEmpty()) {
        message.append(": ").append(text);
      }
    }
    return new IdempotencyStoreException(
        message.toString(), key.scope(), key.redactedKey(), interrupt);
  }

  /**
   * A Redisson message without the command and its arguments: the text before them (which names the
   * node and the timeout), and of the text after them only Redisson's closing client address and
   * retry count.
   */
  static String describe(String message, List<String> sent) {
    if (message == null || message.isBlank()) {
      return "";
    }
    String lower = message.toLowerCase(Locale.ROOT);
    int cut = -1;
    for (String marker : ARGUMENT_MARKERS) {
      int at = lower.indexOf(marker);
      if (at >= 0 && (cut < 0 || at < cut)) {
        cut = at;
      }
    }
    StringBuilder out = new StringBuilder();
    if (cut < 0) {
      out.append(message.strip());
    } else {
      out.append(trimSeparators(message.substring(0, cut)));
      String rest = message.substring(cut);
      out.append(out.length() == 0 ? "" : " ").append("(command arguments left out");
      Matcher client = CLIENT_AT_END.matcher(rest);
      if (client.find() && sent.stream().noneMatch(s -> s.contains(client.group(1)))) {
        out.append("; Redis client ").append(client.group(1));
      }
      Matcher retries = RETRIES_AT_END.matcher(rest);
      if (retries.find()) {
        out.append("; after ")
            .append(retries.group(1))
            .append(" of ")
            .append(retries.group(2))
            .append(" retry attempts");
      }
      out.append(')');
    }
    String text = out.toString();
    for (String s : sent) {
      if (s != null && s.length() >= SHORTEST_REPLACED) {
        text = text.replace(s, "(left out)");
      }
    }
    return text;
  }

  private static String trimSeparators(String text) {
    String t = text.strip();
    while (!t.isEmpty() && (t.endsWith(",") || t.endsWith(":") || t.endsWith(";"))) {
      t = t.substring(0, t.length() - 1).strip();
    }
    return t;
  }
}
