package dev.idempotent.http.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Reads a field of an {@code application/x-www-form-urlencoded} body, in any container. */
public final class FormFields {
  private static final String FORM = "application/x-www-form-urlencoded";

  private FormFields() {}

  /**
   * The first value of the field {@code name} in {@code body}, or {@code null} when the body is not
   * a URL-encoded form, or the field is absent or cannot be decoded.
   */
  public static String first(String contentType, byte[] body, String name) {
    if (contentType == null
        || !contentType.strip().toLowerCase(Locale.ROOT).startsWith(FORM)
        || body.length == 0) {
      return null;
    }
    String text = new String(body, StandardCharsets.ISO_8859_1);
    int from = 0;
    while (from <= text.length()) {
      int end = text.indexOf('&', from);
      if (end < 0) {
        end = text.length();
      }
      int eq = text.indexOf('=', from);
      String field = eq >= 0 && eq < end ? text.substring(from, eq) : text.substring(from, end);
      if (decode(field).equals(name)) {
        return eq >= 0 && eq < end ? decode(text.substring(eq + 1, end)) : "";
      }
      from = end + 1;
    }
    return null;
  }

  private static String decode(String part) {
    try {
      byte[] raw = part.getBytes(StandardCharsets.ISO_8859_1);
      return URLDecoder.decode(new String(raw, StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return "";
    }
  }
}
