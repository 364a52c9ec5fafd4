package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The performance figures the README quotes are the summary's at the top of docs/performance.md:
 * each table the README marks with {@code <!-- performance: NAME -->} must have a table of the same
 * name in the summary, row for row, figure for figure. A run that updates one and not the other
 * fails here, naming the row.
 */
class PerformanceFiguresTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Pattern MARK = Pattern.compile("<!-- performance: ([a-z0-9-]+) -->");

  /** The table rows after each mark of {@code page}, by the mark's name. */
  private static List<String[]> tables(String page) throws IOException {
    String text = Files.readString(ROOT.resolve(page)).replace("\r\n", "\n");
    List<String[]> tables = new ArrayList<>();
    Matcher m = MARK.matcher(text);
    while (m.find()) {
      int start = text.indexOf("\n|", m.end());
      int end = start;
      while (end >= 0 && end + 1 < text.length() && text.charAt(end + 1) == '|') {
        int next = text.indexOf('\n', end + 1);
        end = next < 0 ? text.length() : next;
      }
      tables.add(new String[] {m.group(1), text.substring(start + 1, end).strip()});
    }
    return tables;
  }

  private static String summary() throws IOException {
    String text = Files.readString(ROOT.resolve("docs/performance.md")).replace("\r\n", "\n");
    int start = text.indexOf("\n## Summary");
    assertThat(start).as("docs/performance.md starts with a ## Summary section").isNotNegative();
    int end = text.indexOf("\n## ", start + 1);
    return text.substring(start, end < 0 ? text.length() : end);
  }

  @Test
  void everyTableTheReadmeQuotesIsTheSummarysTable() throws IOException {
    List<String[]> quoted = tables("README.md");
    assertThat(quoted).as("README.md quotes the performance summary").isNotEmpty();
    String summary = summary();
    for (String[] table : quoted) {
      String mark = "<!-- performance: " + table[0] + " -->";
      int at = summary.indexOf(mark);
      assertThat(at)
          .as("docs/performance.md's summary has the table the README marks %s", mark)
          .isNotNegative();
      int start = summary.indexOf("\n|", at);
      int end = summary.indexOf("\n\n", start);
      String inSummary = summary.substring(start + 1, end < 0 ? summary.length() : end).strip();
      List<String> readmeRows = table[1].lines().toList();
      List<String> summaryRows = inSummary.lines().toList();
      for (String row : readmeRows) {
        assertThat(summaryRows)
            .as("the README's row of %s is in docs/performance.md's summary as it is", mark)
            .contains(row);
      }
    }
  }

  @Test
  void theSummaryIsDatedAndNamesTheMachineAndTheLoad() throws IOException {
    String summary = summary();
    assertThat(summary).containsPattern("20\\d\\d-\\d\\d-\\d\\d");
    assertThat(summary).contains("load average");
    assertThat(summary).contains("cores");
  }
}
