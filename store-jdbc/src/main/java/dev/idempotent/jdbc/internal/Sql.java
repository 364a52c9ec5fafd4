package dev.idempotent.jdbc.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One statement: its text with {@code ?} placeholders and the values they bind, in order. Written
 * with named parameters ({@code :scope_id}, {@code :lease}), each turned into a {@code ?}, so that
 * the text says its own bind order.
 */
public record Sql(String text, List<Param> params) {
  private static final Pattern NAMED = Pattern.compile("(?<![:\\w]):([a-z_]+)");

  /** A value a statement binds. Durations ({@code LEASE}, {@code TTL}, {@code AGE}) are µs. */
  public enum Param {
    /** The scope's 64-bit id ({@link dev.idempotent.spi.RecordKey#scopeId()}). */
    SCOPE_ID,
    /** The scope's text (in the scope table only). */
    SCOPE,
    KEY,
    OWNER,
    FINGERPRINT,
    LEASE,
    TTL,
    OUTCOME,
    /** The owner as read, which a takeover replaces. */
    PREVIOUS_OWNER,
    /** The most rows a purge statement deletes. */
    LIMIT,
    /** How long a scope row must have gone unrefreshed before the purge may delete it. */
    AGE,
    /** The walking purge: the primary key the chunk starts after, as the database returned it. */
    AFTER_SCOPE_ID,
    AFTER_KEY,
    /** The walking purge: the last primary key of the chunk, as the database returned it. */
    UP_TO_SCOPE_ID,
    UP_TO_KEY,
    /** The walking purge: the chunk's size less one, the offset of its last row. */
    OFFSET
  }

  /**
   * The statement written with named parameters ({@code :scope_id}), each one turned into a {@code
   * ?}; an unknown name fails here, when the dialect builds its statements.
   */
  static Sql of(String named) {
    List<Param> params = new ArrayList<>();
    Matcher m = NAMED.matcher(named);
    StringBuilder text = new StringBuilder();
    while (m.find()) {
      params.add(Param.valueOf(m.group(1).toUpperCase(Locale.ROOT)));
      m.appendReplacement(text, "?");
    }
    m.appendTail(text);
    return new Sql(text.toString(), List.copyOf(params));
  }
}
