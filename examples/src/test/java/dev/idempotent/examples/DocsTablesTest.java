package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The reference tables of the documentation list what the code has: the exceptions of {@code
 * dev.idempotent} (README), the starter's auto-configurations (docs/spring-boot.md) and the keys
 * {@code idempotent.properties} and the starter read (docs/configuration.md, docs/spring-boot.md).
 * A class, auto-configuration or key added without its row fails here, naming it.
 */
class DocsTablesTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  /** The text of a page from a heading to the next heading of the same level. */
  private static String section(String page, String heading) throws IOException {
    String text = Files.readString(ROOT.resolve(page)).replace("\r\n", "\n");
    int start = text.indexOf("\n" + heading + "\n");
    assertThat(start).as("%s has the heading %s", page, heading).isNotNegative();
    String level = heading.substring(0, heading.indexOf(' ') + 1);
    int end = text.indexOf("\n" + level, start + heading.length() + 2);
    return text.substring(start, end < 0 ? text.length() : end);
  }

  /** The first cells of a section's table rows, without their backquotes. */
  private static List<String> firstCells(String section) {
    List<String> cells = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\| `([^`|]+)`").matcher(section);
    while (m.find()) {
      cells.add(m.group(1));
    }
    return cells;
  }

  @Test
  void theExceptionsTableListsEveryExceptionWithItsStatus() throws IOException {
    String table = section("README.md", "## Exceptions and statuses");
    Path api = ROOT.resolve("core/src/main/java/dev/idempotent");
    Set<String> classes = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    try (Stream<Path> files = Files.list(api)) {
      for (Path file : files.filter(f -> f.toString().endsWith("Exception.java")).toList()) {
        String source = Files.readString(file);
        String name = file.getFileName().toString().replace(".java", "");
        if (!source.contains("public class " + name + " extends IdempotencyException")) {
          continue; // IdempotencyException itself (abstract)
        }
        classes.add(name);
        Matcher status =
            Pattern.compile("int httpStatus\\(\\)\\s*\\{\\s*return (\\d{3});").matcher(source);
        Matcher row =
            Pattern.compile("(?m)^\\| `" + name + "` \\|.*\\| (\\d{3}) \\|$").matcher(table);
        if (!row.find()) {
          problems.add(name + " has no row (| `" + name + "` | when | status |)");
        } else if (status.find() && !status.group(1).equals(row.group(1))) {
          problems.add(
              name + ": the table says " + row.group(1) + ", httpStatus() is " + status.group(1));
        }
      }
    }
    for (String listed : firstCells(table)) {
      if (!classes.contains(listed)) {
        problems.add(listed + " is in the table but is no exception of dev.idempotent");
      }
    }
    assertThat(classes).isNotEmpty();
    assertThat(problems).as("README.md, Exceptions and statuses").isEmpty();
  }

  @Test
  void theAutoConfigurationTableListsEveryImportedAutoConfiguration() throws IOException {
    String table = section("docs/spring-boot.md", "## One auto-configuration per integration");
    Path imports =
        ROOT.resolve(
            "spring-boot-starter/src/main/resources/META-INF/spring/"
                + "org.springframework.boot.autoconfigure.AutoConfiguration.imports");
    Set<String> imported = new TreeSet<>();
    for (String line : Files.readAllLines(imports)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        imported.add(line.strip().substring(line.strip().lastIndexOf('.') + 1));
      }
    }
    List<String> listed = firstCells(table);
    assertThat(imported).isNotEmpty();
    assertThat(listed)
        .as("docs/spring-boot.md's auto-configuration table against %s", imports)
        .containsExactlyInAnyOrderElementsOf(imported);
  }

  private static Set<String> literalKeys(String source) throws IOException {
    Set<String> keys = new TreeSet<>();
    Matcher m =
        Pattern.compile("\"(idempotent\\.[a-z][a-z.-]*[a-z])\"")
            .matcher(Files.readString(ROOT.resolve(source)));
    while (m.find()) {
      if (!m.group(1).equals("idempotent.properties")) {
        keys.add(m.group(1));
      }
    }
    return keys;
  }

  @Test
  void theConfigurationTableListsEveryKeyThePropertiesLoaderReads() throws IOException {
    String table = section("docs/configuration.md", "## Properties");
    Set<String> keys =
        literalKeys("core/src/main/java/dev/idempotent/internal/PropertiesConfigLoader.java");
    assertThat(keys).contains("idempotent.ttl");
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      if (!table.contains("`" + key + "`")) {
        missing.add(key);
      }
    }
    assertThat(missing)
        .as("keys of idempotent.properties missing in docs/configuration.md")
        .isEmpty();
  }

  @Test
  void theStarterPropertiesTableListsEveryKeyOfItsMetadata() throws IOException {
    String table = section("docs/spring-boot.md", "## Properties");
    String metadata =
        Files.readString(
            ROOT.resolve(
                "spring-boot-starter/src/main/resources/META-INF/"
                    + "additional-spring-configuration-metadata.json"));
    Matcher m = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"").matcher(metadata);
    Set<String> names = new TreeSet<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    List<String> missing = new ArrayList<>();
    for (String name : names) {
      if (name.startsWith("idempotent.web.")) {
        if (!table.contains("`idempotent.web.*`")) {
          missing.add(name);
        }
        continue;
      }
      String last = name.substring(name.lastIndexOf('.'));
      String parent = name.substring(0, name.lastIndexOf('.'));
      boolean listed =
          table.contains("`" + name + "`")
              || Pattern.compile(
                      "(?m)^\\| `"
                          + Pattern.quote(parent)
                          + "\\.[^|]*`"
                          + Pattern.quote(last)
                          + "`")
                  .matcher(table)
                  .find();
      if (!listed) {
        missing.add(name);
      }
    }
    assertThat(names).isNotEmpty();
    assertThat(missing)
        .as("keys of the starter's metadata missing in docs/spring-boot.md")
        .isEmpty();
  }
}
