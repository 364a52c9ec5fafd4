package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, CONTRIBUTING.md and {@code docs/**.md} points to a file of the
 * repository, and every {@code #anchor} to a heading of the page it names (GitHub's anchors: lower
 * case, punctuation dropped, spaces as hyphens). A failure names the page and line of the link.
 */
class DocsLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

  /** The lines of a page outside its fenced blocks. */
  private static List<String> prose(Path page) throws IOException {
    List<String> lines = new ArrayList<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        lines.add("");
      } else {
        lines.add(fenced ? "" : line);
      }
    }
    return lines;
  }

  static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    for (String line : prose(page)) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        String anchor =
            h.group(1)
                .strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
        String unique = anchor;
        for (int n = 1; !anchors.add(unique); n++) {
          unique = anchor + "-" + n;
        }
      }
    }
    return anchors;
  }

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : DocsSnippetsTest.pages()) {
      List<String> lines = prose(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = LINK.matcher(lines.get(i).replaceAll("`[^`]*`", ""));
        while (m.find()) {
          String link = m.group(1);
          if (link.matches("[a-z]+:.*")) {
            continue; // http:, https:, mailto:
          }
          String where = DocsSnippetsTest.ROOT.relativize(page) + ":" + (i + 1) + ": " + link;
          int hash = link.indexOf('#');
          String file = hash < 0 ? link : link.substring(0, hash);
          Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
          if (!Files.exists(target)) {
            broken.add(where + " (no such file)");
          } else if (hash >= 0) {
            String anchor = link.substring(hash + 1);
            if (!target.toString().endsWith(".md") || !anchors(target).contains(anchor)) {
              broken.add(
                  where
                      + " (no heading #"
                      + anchor
                      + " in "
                      + DocsSnippetsTest.ROOT.relativize(target)
                      + ")");
            }
          }
          checked++;
        }
      }
    }
    assertThat(broken).as("broken relative links").isEmpty();
    assertThat(checked).isGreaterThan(20);
  }

  @Test
  void anchorsAreGithubs() throws IOException {
    Path readme = DocsSnippetsTest.ROOT.resolve("README.md");
    assertThat(anchors(readme))
        .contains("idempotent-reference", "spring-boot-35-and-40", "quick-start");
  }
}
