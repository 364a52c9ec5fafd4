package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * This application is set up as docs/spring-boot.md says: each block of the pom between its {@code
 * docs/spring-boot.md: user setup, ...} markers stands in the document, so the setup users copy is
 * the one these tests prove (on each Boot line, whose pom holds the same blocks).
 */
class SetupMatchesDocsTest {
  private static final Path MODULE = Path.of("").toAbsolutePath();

  @Test
  void everyMarkedBlockOfThisPomIsInTheDocument() throws IOException {
    String pom = Files.readString(MODULE.resolve("pom.xml"));
    String doc =
        normalized(Files.readString(MODULE.getParent().getParent().resolve("docs/spring-boot.md")));
    for (String block : new String[] {"property", "dependencies", "plugin"}) {
      String begin = "<!-- docs/spring-boot.md: user setup, " + block + " (begin) -->";
      String end = "<!-- docs/spring-boot.md: user setup, " + block + " (end) -->";
      int b = pom.indexOf(begin);
      int e = pom.indexOf(end, b);
      assertThat(b).as("marker %s in %s", begin, MODULE).isNotNegative();
      assertThat(e).as("marker %s", end).isGreaterThan(b);
      assertThat(doc)
          .as("the %s block of %s/pom.xml in docs/spring-boot.md", block, MODULE.getFileName())
          .contains(normalized(pom.substring(b + begin.length(), e)));
    }
  }

  private static String normalized(String xml) {
    return xml.replaceAll("\\s+", " ").trim();
  }
}
