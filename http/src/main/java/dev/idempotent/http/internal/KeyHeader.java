package dev.idempotent.http.internal;

import java.util.List;

/**
 * Reads the {@code Idempotency-Key} header as the draft defines it: one structured-field string
 * (RFC 8941), quoted ({@code "abc"}, with {@code \"} and {@code \\} escapes) or, leniently, bare
 * ({@code abc}).
 */
public final class KeyHeader {
  /** The longest key accepted, in characters. */
  public static final int MAX_LENGTH = 255;

  private KeyHeader() {}

  /**
   * The key in {@code values} (every {@code Idempotency-Key} header of the request).
   *
   * @return the key; never blank
   * @throws IllegalArgumentException with a message for the client saying what is wrong
   */
  public static String parse(List<String> values) {
    if (values.size() != 1) {
      throw new IllegalArgumentException(
          "the request has " + values.size() + " Idempotency-Key headers; send " + "exactly one");
    }
    String raw = values.get(0).strip();
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new IllegalArgumentException(
            "the Idempotency-Key contains a character outside printable ASCII; "
                + "use letters, digits and punctuation only (a UUID is a good key)");
      }
    }
    String key = raw;
    if (raw.startsWith("\"")) {
      key = unquote(raw);
    } else if (raw.contains(",")) {
      throw new IllegalArgumentException("the Idempotency-Key holds a list; send exactly one key");
    }
    if (key.isBlank()) {
      throw new IllegalArgumentException(
          "the Idempotency-Key is empty; send a unique key, for example a UUID");
    }
    if (key.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "the Idempotency-Key is "
              + key.length()
              + " characters long; send at "
              + "most "
              + MAX_LENGTH);
    }
    return key;
  }

  private static String unquote(String raw) {
    StringBuilder sb = new StringBuilder(raw.length());
    int i = 1;
    while (i < raw.length()) {
      char c = raw.charAt(i);
      if (c == '\\') {
        if (i + 1 >= raw.length() || raw.charAt(i + 1) != '"' && raw.charAt(i + 1) != '\\') {
          throw new IllegalArgumentException(
              "the quoted Idempotency-Key has a bad escape; only \\\" and \\\\ " + "are allowed");
        }
        sb.append(raw.charAt(i + 1));
        i += 2;
      } else if (c == '"') {
        if (i != raw.length() - 1) {
          throw new IllegalArgumentException(
              "the quoted Idempotency-Key has text after its closing quote; send one" + " string");
        }
        return sb.toString();
      } else {
        sb.append(c);
        i++;
      }
    }
    throw new IllegalArgumentException("the quoted Idempotency-Key has no closing quote");
  }
}
