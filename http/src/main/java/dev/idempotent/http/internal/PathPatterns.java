package dev.idempotent.http.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Servlet URL patterns, matched against the path within the application: exact ({@code /orders}),
 * prefix ({@code /api/*}), extension ({@code *.do}) and {@code /*} or {@code /} for every path.
 */
public final class PathPatterns {
  private final List<String> patterns;

  /** The patterns by form, read once: every request is matched against them. */
  private final boolean all;

  private final String[] exact;

  /** {@code /api/*}: {@code /api} itself, or anything under {@code /api/}. */
  private final String[] prefixes;

  private final String[] prefixDirectories;

  /** {@code *.do}: {@code .do}. */
  private final String[] extensions;

  private PathPatterns(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
    boolean any = false;
    List<String> exactPaths = new ArrayList<>();
    List<String> prefixPaths = new ArrayList<>();
    List<String> suffixes = new ArrayList<>();
    for (String p : this.patterns) {
      if (p.equals("/*") || p.equals("/")) {
        any = true;
      } else if (p.endsWith("/*")) {
        prefixPaths.add(p.substring(0, p.length() - 2));
      } else if (p.startsWith("*.")) {
        suffixes.add(p.substring(1));
      } else {
        exactPaths.add(p);
      }
    }
    this.all = any;
    this.exact = exactPaths.toArray(String[]::new);
    this.prefixes = prefixPaths.toArray(String[]::new);
    this.prefixDirectories = prefixPaths.stream().map(x -> x + "/").toArray(String[]::new);
    this.extensions = suffixes.toArray(String[]::new);
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
    if (all) {
      return true;
    }
    for (String e : exact) {
      if (e.equals(path)) {
        return true;
      }
    }
    for (int i = 0; i < prefixes.length; i++) {
      if (path.startsWith(prefixDirectories[i]) || path.equals(prefixes[i])) {
        return true;
      }
    }
    // the extension never contains '/', so a path ending with it ends its last segment with it
    for (String x : extensions) {
      if (path.endsWith(x)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return patterns.toString();
  }
}
