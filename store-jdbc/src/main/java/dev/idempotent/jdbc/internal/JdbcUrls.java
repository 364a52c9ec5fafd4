package dev.idempotent.jdbc.internal;

import java.util.regex.Pattern;

/** JDBC URLs fit for messages and logs: passwords masked. */
public final class JdbcUrls {
  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)((?:password|passwd|pwd)\\s*=)[^&;,)]*");
  private static final Pattern USER_INFO = Pattern.compile("//([^/@:?;]*):([^/@?;]*)@");

  private JdbcUrls() {}

  /**
   * {@code url} with any password parameter or {@code user:password@} part replaced by {@code
   * ****}.
   */
  public static String withoutPassword(String url) {
    if (url == null) {
      return "(unknown JDBC URL)";
    }
    String masked = PASSWORD_PARAMETER.matcher(url).replaceAll("$1****");
    return USER_INFO.matcher(masked).replaceAll("//$1:****@");
  }

  /**
   * {@code text} with every occurrence of {@code secret} replaced by {@code ****}; also masks
   * password parameters.
   */
  public static String mask(String text, String secret) {
    if (text == null) {
      return null;
    }
    String out = text;
    if (secret != null && !secret.isEmpty()) {
      out = out.replace(secret, "****");
    }
    return withoutPassword(out);
  }
}
