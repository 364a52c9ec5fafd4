package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every fenced block of README.md, CONTRIBUTING.md and {@code docs/**.md} is checked by a test, and
 * the marker on the line before its fence says which (a failure names the file and line of the
 * block):
 *
 * <ul>
 *   <li>{@code <!-- consumer: TARGET -->}, {@code <!-- consumer-lombok: TARGET -->}: built into a
 *       consumer project and run by {@link ReadmeSnippetsBuildTest} (TARGET {@code dependencies},
 *       {@code plugins} or a source path);
 *   <li>{@code <!-- snippet: PATH REGION -->}: the block is the text of PATH between the lines
 *       holding {@code REGION (begin)} and {@code REGION (end)}, a source compiled and tested by
 *       its module; whitespace runs count as one space, {@code ...} in the block stands for any
 *       text (a method body left out), and an XML block may wrap the region in the element it goes
 *       into;
 *   <li>{@code <!-- command -->}: shell commands; each {@code mvn} line's {@code -pl} modules and
 *       {@code -P} profiles exist, each {@code java} line's jar is a module's and its main class a
 *       source file;
 *   <li>{@code <!-- output: CLASS -->}: what {@code CLASS.main()} prints, run here;
 *   <li>{@code <!-- properties -->}: each key is read by the code: a string literal in a main
 *       source, or a key of a main resource's {@code .properties};
 *   <li>{@code <!-- dependency -->}: each {@code dev.idempotent} artifact is a module of the
 *       reactor at its version;
 *   <li>{@code <!-- tested-by: PATH -->}: PATH is a test that finds the block by this very marker;
 *   <li>{@code <!-- fragment: REASON -->}: not checked, for REASON (a picture, not code); keep
 *       these few.
 * </ul>
 */
class DocsSnippetsTest {
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final String VERSION = "0.1.0-SNAPSHOT";
  private static final Pattern FENCE = Pattern.compile("^(\\s*)```([a-z]*)\\s*$");
  private static final Pattern MARKER = Pattern.compile("^<!-- ([a-z-]+)(?::\\s*(.*?))?\\s*-->$");
  private static final Set<String> KINDS =
      Set.of(
          "consumer",
          "consumer-lombok",
          "snippet",
          "command",
          "output",
          "properties",
          "dependency",
          "tested-by",
          "fragment");

  /** A fenced block: where it is, the marker line before it (or null) and its text. */
  record Block(Path file, int line, String language, String marker, String text) {
    String where() {
      return ROOT.relativize(file) + ":" + line;
    }

    String kind() {
      Matcher m = marker == null ? null : MARKER.matcher(marker);
      return m != null && m.matches() ? m.group(1) : null;
    }

    String argument() {
      Matcher m = MARKER.matcher(marker);
      return m.matches() && m.group(2) != null ? m.group(2).trim() : "";
    }
  }

  /** README.md, CONTRIBUTING.md and every page under docs/. */
  static List<Path> pages() throws IOException {
    List<Path> pages =
        new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  static List<Block> blocks(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<Block> found = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher open = FENCE.matcher(lines.get(i));
      if (!open.matches()) {
        continue;
      }
      int start = i;
      StringBuilder text = new StringBuilder();
      for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
        text.append(lines.get(i)).append('\n');
      }
      assertThat(i)
          .as("%s:%d: the block is closed", ROOT.relativize(file), start + 1)
          .isLessThan(lines.size());
      String marker =
          start > 0 && lines.get(start - 1).startsWith("<!--")
              ? lines.get(start - 1).strip()
              : null;
      found.add(new Block(file, start + 1, open.group(2), marker, text.toString()));
    }
    return found;
  }

  static List<Block> allBlocks() throws IOException {
    List<Block> all = new ArrayList<>();
    for (Path page : pages()) {
      all.addAll(blocks(page));
    }
    return all;
  }

  @Test
  void everyBlockIsMarkedWithHowItIsChecked() throws IOException {
    List<String> unmarked = new ArrayList<>();
    for (Block b : allBlocks()) {
      if (b.kind() == null || !KINDS.contains(b.kind())) {
        unmarked.add(b.where() + " (```" + b.language() + ", marker: " + b.marker() + ")");
      }
    }
    assertThat(unmarked)
        .as(
            "blocks without a marker saying how a test checks them; put one of "
                + KINDS
                + " on the line before the fence (see "
                + getClass().getSimpleName()
                + ")")
        .isEmpty();
  }

  @Test
  void consumerBlocksNameWhereTheyGo() throws IOException {
    for (Block b : allBlocks()) {
      if ("consumer".equals(b.kind()) || "consumer-lombok".equals(b.kind())) {
        assertThat(b.argument())
            .as("%s: the target of %s", b.where(), b.marker())
            .matches("dependencies|plugins|src/(main|test)/java/.+\\.java");
      }
    }
  }

  @Test
  void snippetBlocksAreTheirSourceRegion() throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Block b : allBlocks()) {
      if ("snippet".equals(b.kind())) {
        problems.addAll(snippetProblems(b));
        checked++;
      }
    }
    assertThat(problems).as("snippets that are not their source region").isEmpty();
    assertThat(checked).isPositive();
  }

  private static List<String> snippetProblems(Block b) throws IOException {
    String argument = b.argument();
    int space = argument.indexOf(' ');
    if (space < 0) {
      return List.of(b.where() + ": " + b.marker() + " names no path and region");
    }
    Path source = ROOT.resolve(argument.substring(0, space));
    String region = argument.substring(space + 1);
    if (!Files.isRegularFile(source)) {
      return List.of(b.where() + ": no source " + ROOT.relativize(source));
    }
    String text = Files.readString(source);
    int begin = text.indexOf(region + " (begin)");
    int end = text.indexOf(region + " (end)", Math.max(begin, 0));
    if (begin < 0 || end < 0) {
      return List.of(
          b.where()
              + ": no lines '"
              + region
              + " (begin)' and '(end)' in "
              + ROOT.relativize(source));
    }
    String body = text.substring(text.indexOf('\n', begin) + 1, text.lastIndexOf('\n', end));
    if (!matches(b.text(), body)) {
      return List.of(
          b.where()
              + ": the block is "
              + ROOT.relativize(source)
              + " between its '"
              + region
              + "' markers:\n"
              + body
              + "\nbut the block is:\n"
              + b.text());
    }
    return List.of();
  }

  /**
   * Whether the block is the region, whitespace runs counting as one space and {@code ...} as any
   * text; an XML block may wrap the region in the element it goes into (a pom's {@code
   * <properties>}).
   */
  static boolean matches(String block, String region) {
    Matcher wrapped =
        Pattern.compile("\\s*<([a-zA-Z.-]+)>\\n(.*)\\n</\\1>\\s*", Pattern.DOTALL).matcher(block);
    return matchesExactly(block, region)
        || wrapped.matches() && matchesExactly(wrapped.group(2), region);
  }

  private static boolean matchesExactly(String block, String region) {
    String[] parts = normalized(block).split(Pattern.quote("..."), -1);
    String pattern = Stream.of(parts).map(Pattern::quote).collect(Collectors.joining(".*?"));
    return Pattern.compile(pattern, Pattern.DOTALL).matcher(normalized(region)).matches();
  }

  static String normalized(String text) {
    return text.replaceAll("\\s+", " ").trim();
  }

  @Test
  void commandsNameModulesProfilesAndClassesThatExist() throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Block b : allBlocks()) {
      if (!"command".equals(b.kind())) {
        continue;
      }
      for (String line : b.text().replace("\\\n", " ").split("\n")) {
        String command =
            line.replaceAll("#.*", "").replaceAll("^(\\s*[A-Z_0-9]+=\\S+\\s+)*", "").strip();
        if (!command.isEmpty()) {
          commandProblems(command)
              .forEach(p -> problems.add(b.where() + ": " + p + " in: " + command));
          checked++;
        }
      }
    }
    assertThat(problems).as("commands naming what does not exist").isEmpty();
    assertThat(checked).isPositive();
  }

  private static final Pattern MODULES = Pattern.compile("-pl\\s+(\\S+)");
  private static final Pattern PROFILES = Pattern.compile("(?:^|\\s)-P(\\S+)");
  private static final Pattern JAR =
      Pattern.compile(
          "(?:-jar|-cp)\\s+(\\S+?)/target/\\S+\\.jar(?:\\s+(dev\\.idempotent\\.[\\w.]+))?");

  private static List<String> commandProblems(String command) throws IOException {
    List<String> problems = new ArrayList<>();
    if (command.startsWith("mvn ")) {
      List<String> named = new ArrayList<>();
      Matcher pl = MODULES.matcher(command);
      if (pl.find()) {
        named.addAll(List.of(pl.group(1).split(",")));
      }
      String rootPom = Files.readString(ROOT.resolve("pom.xml"));
      for (String module : named) {
        if (!rootPom.contains("<module>" + module + "</module>")) {
          problems.add("-pl " + module + " is not a module of the reactor");
        }
      }
      Matcher p = PROFILES.matcher(command);
      while (p.find()) {
        boolean declared = false;
        for (String module : named.isEmpty() ? List.of(".") : named) {
          Path pom = ROOT.resolve(module).resolve("pom.xml");
          declared |=
              Files.isRegularFile(pom)
                  && Files.readString(pom).contains("<id>" + p.group(1) + "</id>");
        }
        if (!declared) {
          problems.add("no profile " + p.group(1) + " in " + (named.isEmpty() ? "pom.xml" : named));
        }
      }
    } else if (command.startsWith("java ")) {
      Matcher j = JAR.matcher(command);
      if (!j.find()) {
        problems.add("no module's jar");
      } else if (!Files.isRegularFile(ROOT.resolve(j.group(1)).resolve("pom.xml"))) {
        problems.add("no module " + j.group(1));
      } else if (j.group(2) != null
          && !Files.isRegularFile(
              ROOT.resolve(j.group(1))
                  .resolve("src/main/java")
                  .resolve(j.group(2).replace('.', '/') + ".java"))) {
        problems.add("no main class " + j.group(2) + " in " + j.group(1));
      }
    } else if (command.matches("(redis-server|redis-cli) .*")) {
      // a Redis server of its own for a benchmark run, started and stopped around the run's java
      // command
    } else {
      problems.add("not a mvn, java, redis-server or redis-cli command");
    }
    return problems;
  }

  @Test
  void theReadmeKeepsTheTestCommandCiRuns() throws IOException {
    assertThat(blocks(ROOT.resolve("README.md")))
        .as("the README's test command, as CI calls it")
        .anyMatch(b -> "command".equals(b.kind()) && b.text().equals("mvn -B verify\n"));
  }

  @Test
  void outputBlocksAreWhatTheirClassPrints() throws Exception {
    int checked = 0;
    for (Block b : allBlocks()) {
      if (!"output".equals(b.kind())) {
        continue;
      }
      Class<?> main = Class.forName(b.argument());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrintStream before = System.out;
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      try {
        main.getMethod("main", String[].class).invoke(null, (Object) new String[0]);
      } finally {
        System.setOut(before);
        dev.idempotent.Idempotency.reset();
      }
      String printed =
          out.toString(StandardCharsets.UTF_8)
              .lines()
              .map(String::stripTrailing)
              .collect(Collectors.joining("\n", "", "\n"));
      String shown =
          b.text().lines().map(String::stripTrailing).collect(Collectors.joining("\n", "", "\n"));
      assertThat(printed).as("%s: what %s prints", b.where(), b.argument()).isEqualTo(shown);
      checked++;
    }
    assertThat(checked).isPositive();
  }

  @Test
  void propertiesBlocksNameKeysTheCodeReads() throws IOException {
    String sources = mainSources();
    List<String> unknown = new ArrayList<>();
    int checked = 0;
    for (Block b : allBlocks()) {
      if (!"properties".equals(b.kind())) {
        continue;
      }
      for (String line : b.text().split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String key = line.substring(0, line.indexOf('=')).strip();
        if (line.substring(line.indexOf('=') + 1).matches(".*\\s[#!].*")) {
          unknown.add(
              b.where()
                  + ": "
                  + key
                  + " has a comment after its value (in .properties that is part of "
                  + "the value: put the comment on a line of its own)");
        }
        if (!sources.contains("\"" + key + "\"") && !sources.contains("\n" + key + "=")) {
          unknown.add(b.where() + ": " + key);
        }
        checked++;
      }
    }
    assertThat(unknown)
        .as(
            "properties that no code reads (neither a literal in a main source, nor a key of a main"
                + " resource, nor a name in the starter's configuration metadata)")
        .isEmpty();
    assertThat(checked).isPositive();
  }

  /** The text of every main Java source and main {@code .properties} resource of the repository. */
  private static String mainSources() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path p :
          files
              .filter(p -> p.toString().contains("/src/main/"))
              .filter(
                  p ->
                      p.toString().endsWith(".java")
                          || p.toString().endsWith(".properties")
                          || p.toString().endsWith("-configuration-metadata.json"))
              .toList()) {
        all.append('\n').append(Files.readString(p));
      }
    }
    // the metadata Boot's configuration processor generates from the starter's typed properties
    // names the keys they bind (idempotent.web.key), which no literal spells out; the starter is
    // built before this module
    Path generated =
        ROOT.resolve(
            "spring-boot-starter/target/classes/META-INF/spring-configuration-metadata.json");
    assertThat(generated).as("the starter's generated metadata (build the starter first)").exists();
    all.append('\n').append(Files.readString(generated));
    return all.toString();
  }

  @Test
  void dependencyBlocksNameModulesOfTheReactor() throws IOException {
    Pattern dependency =
        Pattern.compile(
            "<groupId>dev\\.idempotent</groupId>\\s*<artifactId>([^<]+)</artifactId>"
                + "\\s*<version>([^<]+)</version>");
    int checked = 0;
    for (Block b : allBlocks()) {
      if (!"dependency".equals(b.kind())) {
        continue;
      }
      Matcher m = dependency.matcher(b.text());
      while (m.find()) {
        String module = m.group(1).replaceFirst("^idempotent-", "");
        assertThat(ROOT.resolve(module).resolve("pom.xml"))
            .as("%s: the module of %s", b.where(), m.group(1))
            .isRegularFile();
        assertThat(Files.readString(ROOT.resolve(module).resolve("pom.xml")))
            .as("%s: %s is that module's artifact", b.where(), m.group(1))
            .contains("<artifactId>" + m.group(1) + "</artifactId>");
        assertThat(m.group(2))
            .as("%s: the version of %s", b.where(), m.group(1))
            .isEqualTo(VERSION);
        checked++;
      }
      assertThat(checked).as("%s: a dev.idempotent dependency", b.where()).isPositive();
    }
    assertThat(checked).isPositive();
  }

  @Test
  void testedByBlocksAreFoundByTheirTest() throws IOException {
    for (Block b : allBlocks()) {
      if ("tested-by".equals(b.kind())) {
        Path test = ROOT.resolve(b.argument());
        assertThat(test).as("%s: the test named by %s", b.where(), b.marker()).isRegularFile();
        String marker = b.marker();
        String source = Files.readString(test).replaceAll("\"\\s*\\+\\s*\"", "");
        assertThat(source)
            .as("%s: %s finds the block by its marker", b.where(), b.argument())
            .contains(marker);
      }
    }
  }

  @Test
  void fragmentsSayWhy() throws IOException {
    List<String> fragments = new ArrayList<>();
    for (Block b : allBlocks()) {
      if ("fragment".equals(b.kind())) {
        assertThat(b.argument())
            .as("%s: the reason the block is not checked", b.where())
            .isNotBlank();
        fragments.add(b.where() + ": " + b.argument());
      }
    }
    System.out.println("Unchecked blocks (fragments): " + fragments);
    assertThat(fragments)
        .as("unchecked blocks stay few: check a new one with one of the other markers instead")
        .hasSizeLessThanOrEqualTo(3);
  }
}
