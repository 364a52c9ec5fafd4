package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The Maven setup in the README is the one this module builds with, so the snippet users copy is
 * proven.
 */
class ExamplesMatchReadmeTest {
  private static final Path MODULE = Path.of("").toAbsolutePath();

  private static String between(String text, String begin, String end) {
    int b = text.indexOf(begin);
    int e = text.indexOf(end, b);
    assertThat(b).as("marker %s", begin).isNotNegative();
    assertThat(e).as("marker %s", end).isGreaterThan(b);
    return text.substring(text.indexOf('\n', b) + 1, text.lastIndexOf('\n', e));
  }

  private static String normalized(String xml) {
    return xml.replaceAll("\\s+", " ").trim();
  }

  @Test
  void thePluginBlockInTheReadmeIsTheOneThisModuleUses() throws IOException {
    String pom = Files.readString(MODULE.resolve("pom.xml"));
    String readme = Files.readString(MODULE.getParent().resolve("README.md"));
    String plugin =
        between(
            pom,
            "<!-- README: user setup, plugin (begin) -->",
            "<!-- README: user setup, plugin (end) -->");
    assertThat(normalized(readme)).contains(normalized(plugin));
  }

  @Test
  void theDependenciesInTheReadmeAreTheOnesThisModuleUses() throws IOException {
    String pom = Files.readString(MODULE.resolve("pom.xml"));
    String readme = normalized(Files.readString(MODULE.getParent().resolve("README.md")));
    String deps =
        between(
            pom,
            "<!-- README: user setup, dependencies (begin) -->",
            "<!-- README: user setup, dependencies (end) -->");
    String version = "0.1.0-SNAPSHOT";
    for (String artifact : new String[] {"idempotent-core", "idempotent-store-memory"}) {
      assertThat(normalized(deps)).contains("<artifactId>" + artifact + "</artifactId>");
      assertThat(readme)
          .contains("<groupId>dev.idempotent</groupId> <artifactId>" + artifact + "</artifactId>");
    }
    assertThat(readme).contains("<version>" + version + "</version>");
  }
}
