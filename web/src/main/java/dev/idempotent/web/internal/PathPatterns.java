package dev.idempotent.web.internal;

import java.util.List;

/**
 * Servlet URL patterns, matched against the path within the application: exact ({@code /orders}),
 * prefix ({@code /api/*}), extension ({@code *.do}) and {@code /*} or {@code /} for every path.
 */
public final class PathPatterns {
  private final List<String> patterns;

  private PathPatterns(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
  }

  /**
   * @throws IllegalArgumentException naming a pattern that is not of the servlet forms
   */
  public static PathPatterns of(List<String> patterns, String setting) {
    for (String p : patterns) {
      boolean ok =
          p != null
              && (p.startsWith("/")
                      && (!p.contains("*") || p.endsWith("/*") && p.indexOf('*') == p.length() - 1)
                  || p.startsWith("*.") && p.indexOf('/') < 0 && p.lastIndexOf('*') == 0);
      if (!ok) {
        throw new IllegalArgumentException(
            setting
                + ": '"
                + p
                + "' is not a servlet URL pattern; use an exact path "
                + "(/orders), a prefix (/api/*), an extension (*.do) or /* for all paths");
      }
    }
    return new PathPatterns(patterns);
  }

  public boolean isEmpty() {
    return patterns.isEmpty();
  }

  public List<String> patterns() {
    return patterns;
  }

  public boolean matches(String path) {
    for (String p : patterns) {
      if (p.equals("/*") || p.equals("/") || p.equals(path)) {
        return true;
      }
      if (p.endsWith("/*")) {
        String prefix = p.substring(0, p.length() - 2);
        if (path.equals(prefix) || path.startsWith(prefix + "/")) {
          return true;
        }
      } else if (p.startsWith("*.")) {
        int slash = path.lastIndexOf('/');
        if (path.substring(slash + 1).endsWith(p.substring(1))) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return patterns.toString();
  }
}
