package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Builds consumer projects from the marked blocks of the README and of {@code docs/*.md}, as a new
 * user would copy them, with a separate Maven process on Java 17 and on Java 25, then runs the
 * woven code and checks that a repeat is replayed.
 *
 * <p>A block is marked by an HTML comment on the line before its fence: {@code <!-- consumer:
 * dependencies -->}, {@code <!-- consumer: plugins -->} or {@code <!-- consumer:
 * src/main/java/...java -->} (and the same with {@code consumer-lombok} for the Lombok build in
 * {@code docs/weaving.md}). The build is offline: a temporary local repository holds the reactor's
 * freshly built jars, and {@code ~/.m2/repository} serves as the remote for plugins and third-party
 * jars.
 */
class ReadmeSnippetsBuildTest {
  private static final Path MODULE = Path.of("").toAbsolutePath();
  private static final Path ROOT = MODULE.getParent();
  private static final String VERSION = "0.1.0-SNAPSHOT";
  private static final Pattern MARKED =
      Pattern.compile(
          "<!-- (consumer(?:-lombok)?): ([^ ]+) -->\\n```[a-z]*\\n(.*?)\\n```", Pattern.DOTALL);
  private static final boolean CI = "true".equalsIgnoreCase(System.getenv("CI"));

  private static Path work;
  private static Map<String, Map<String, List<String>>> blocks;

  /**
   * Where each marked block is, as {@code file:line: <!-- marker -->}, for the failure messages.
   */
  private static final List<String> ORIGINS = new ArrayList<>();

  @BeforeAll
  static void setUp() throws IOException {
    blocks = markedBlocks();
    work = Files.createTempDirectory("readme-consumer");
    seedLocalRepository(work.resolve("repo"));
    Files.writeString(
        work.resolve("settings.xml"),
        "<settings>\n"
            + "  <localRepository>"
            + work.resolve("repo")
            + "</localRepository>\n"
            + "  <mirrors><mirror><id>local-m2</id><mirrorOf>*</mirrorOf><url>"
            + Path.of(System.getProperty("user.home"), ".m2", "repository").toUri()
            + "</url></mirror></mirrors>\n"
            + "</settings>\n");
  }

  @AfterAll
  static void tearDown() throws IOException {
    if (work != null) {
      try (Stream<Path> files = Files.walk(work)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  /**
   * Every marked block of README.md and docs/, by project, then by target (dependencies, plugins, a
   * path).
   */
  private static Map<String, Map<String, List<String>>> markedBlocks() throws IOException {
    List<Path> texts = new ArrayList<>();
    texts.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(texts::add);
    }
    Map<String, Map<String, List<String>>> found = new LinkedHashMap<>();
    for (Path text : texts) {
      String content = Files.readString(text).replace("\r\n", "\n");
      Matcher m = MARKED.matcher(content);
      while (m.find()) {
        long line = content.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 2;
        ORIGINS.add(
            ROOT.relativize(text)
                + ":"
                + line
                + ": <!-- "
                + m.group(1)
                + ": "
                + m.group(2)
                + " -->");
        found
            .computeIfAbsent(m.group(1), k -> new LinkedHashMap<>())
            .computeIfAbsent(m.group(2), k -> new ArrayList<>())
            .add(m.group(3));
      }
    }
    return found;
  }

  /**
   * The reactor's jars and poms of the modules a consumer uses, as if installed, in a fresh local
   * repository.
   */
  private static void seedLocalRepository(Path repo) throws IOException {
    copyArtifact(repo, "idempotent-parent", ROOT.resolve("pom.xml"), null);
    for (String module : new String[] {"core", "store-memory"}) {
      String artifact = "idempotent-" + module;
      Path jar = ROOT.resolve(module).resolve("target").resolve(artifact + "-" + VERSION + ".jar");
      if (!Files.isRegularFile(jar)) {
        String reason =
            jar
                + " is not built: run the reactor, e.g. mvn -B verify or mvn -pl examples -am"
                + " verify";
        if (CI) {
          fail(reason);
        }
        System.out.println("ReadmeSnippetsBuildTest skipped: " + reason);
        Assumptions.abort(reason);
      }
      copyArtifact(repo, artifact, ROOT.resolve(module).resolve("pom.xml"), jar);
    }
  }

  private static void copyArtifact(Path repo, String artifact, Path pom, Path jar)
      throws IOException {
    Path dir = repo.resolve("dev/idempotent").resolve(artifact).resolve(VERSION);
    Files.createDirectories(dir);
    Files.copy(pom, dir.resolve(artifact + "-" + VERSION + ".pom"));
    if (jar != null) {
      Files.copy(jar, dir.resolve(artifact + "-" + VERSION + ".jar"));
    }
  }

  private static List<String> block(String project, String target) {
    List<String> found = blocks.getOrDefault(project, Map.of()).get(target);
    assertThat(found)
        .as("a <!-- %s: %s --> block in README.md or docs/", project, target)
        .isNotEmpty();
    return found;
  }

  /**
   * Not part of any snippet: the versions of Maven's default lifecycle plugins (resources,
   * surefire, jar) that the reactor uses, so the offline build finds them in {@code ~/.m2}. A
   * user's build downloads Maven's defaults; the compiler plugin is left to the README's block,
   * which has to set the release.
   */
  private static final String LIFECYCLE_PLUGINS =
      ""
          + "    <pluginManagement>\n      <plugins>\n"
          + plugin("maven-resources-plugin", "3.3.1")
          + plugin("maven-surefire-plugin", "3.5.4")
          + plugin("maven-jar-plugin", "3.4.2")
          + "      </plugins>\n    </pluginManagement>\n";

  private static String plugin(String artifact, String version) {
    return "        <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>"
        + artifact
        + "</artifactId><version>"
        + version
        + "</version></plugin>\n";
  }

  private static Path jdk25() {
    String configured = System.getenv("IDEMPOTENT_JDK25_HOME");
    Path home = Path.of(configured != null ? configured : "/usr/lib/jvm/temurin-25-jdk-amd64");
    if (!Files.isExecutable(home.resolve("bin/java"))) {
      String reason = "no JDK 25 at " + home + " (set IDEMPOTENT_JDK25_HOME)";
      if (CI) {
        fail(reason);
      }
      System.out.println("ReadmeSnippetsBuildTest skipped on Java 25: " + reason);
      Assumptions.abort(reason);
    }
    return home;
  }

  private static Path jdk17() {
    return Path.of(System.getProperty("java.home"));
  }

  /**
   * Writes the project: its pom from the marked dependency and plugin blocks, its sources, and a
   * check to run.
   */
  private static Path project(
      String name,
      List<String> dependencies,
      List<String> plugins,
      Map<String, String> sources,
      String check)
      throws IOException {
    Path dir = work.resolve(name);
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("pom.xml"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n"
            + "  <modelVersion>4.0.0</modelVersion>\n"
            + "  <groupId>com.example</groupId>\n"
            + "  <artifactId>"
            + name
            + "</artifactId>\n"
            + "  <version>1.0</version>\n"
            + "  <properties><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>\n"
            + "  <dependencies>\n"
            + String.join("\n", dependencies)
            + "\n  </dependencies>\n"
            + "  <build>\n"
            + LIFECYCLE_PLUGINS
            + "    <plugins>\n"
            + String.join("\n", plugins)
            + "\n    </plugins>\n  </build>\n"
            + "</project>\n");
    for (Map.Entry<String, String> source : sources.entrySet()) {
      Path file = dir.resolve(source.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, source.getValue());
    }
    Path checkFile = dir.resolve("src/main/java/readmecheck/Check.java");
    Files.createDirectories(checkFile.getParent());
    Files.writeString(
        checkFile,
        "package readmecheck;\n\n"
            + "public class Check {\n"
            + "  static void expect(Object actual, Object expected) {\n"
            + "    if (!expected.equals(actual)) {\n"
            + "      throw new AssertionError(\"expected \" + expected + \" but got \" + actual);\n"
            + "    }\n"
            + "  }\n\n"
            + "  public static void main(String[] args) throws Exception {\n"
            + check
            + "    System.out.println(\"CHECK OK\");\n"
            + "    dev.idempotent.Idempotency.shutdown();\n"
            + "  }\n"
            + "}\n");
    return dir;
  }

  private static Map<String, String> sources(String project) {
    Map<String, String> sources = new LinkedHashMap<>();
    blocks
        .getOrDefault(project, Map.of())
        .forEach(
            (target, texts) -> {
              if (target.startsWith("src/")) {
                assertThat(texts).as("one block for %s", target).hasSize(1);
                sources.put(target, texts.get(0) + "\n");
              }
            });
    return sources;
  }

  /**
   * Runs {@code mvn -B -q verify} in the project on the JDK, then its check; returns the check's
   * output.
   */
  private static String buildAndRun(Path project, Path jdk) throws Exception {
    Path log = project.resolve("build-" + jdk.getFileName() + ".log");
    run(
        project,
        jdk,
        log,
        mvn(),
        "-B",
        "-q",
        "-nsu",
        "-s",
        work.resolve("settings.xml").toString(),
        "-Dmaven.repo.local=" + work.resolve("repo"),
        "verify");
    String classpath =
        project.resolve("target/classes")
            + File.pathSeparator
            + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path out = project.resolve("run-" + jdk.getFileName() + ".log");
    run(
        project,
        jdk,
        out,
        jdk.resolve("bin/java").toString(),
        "-cp",
        classpath,
        "readmecheck.Check");
    return Files.readString(out);
  }

  private static void run(Path dir, Path jdk, Path log, String... command) throws Exception {
    int exit = exitOf(dir, jdk, log, command);
    if (exit != 0) {
      fail(
          "exit "
              + exit
              + " on "
              + jdk
              + ": "
              + String.join(" ", command)
              + "\n"
              + Files.readString(log, StandardCharsets.UTF_8)
              + "\nThe project is built from these blocks (file:line of the fence):\n  "
              + String.join("\n  ", ORIGINS));
    }
  }

  /** Runs the command on the JDK (its {@code java} first on the PATH); returns its exit value. */
  private static int exitOf(Path dir, Path jdk, Path log, String... command) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("JAVA_HOME", jdk.toString());
    builder
        .environment()
        .put("PATH", jdk.resolve("bin") + File.pathSeparator + System.getenv("PATH"));
    builder.environment().remove("MAVEN_ARGS");
    Process process = builder.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail("timed out: " + String.join(" ", command) + "\n" + Files.readString(log));
    }
    return process.exitValue();
  }

  private static String mvn() {
    String mavenHome = System.getenv("MAVEN_HOME");
    return mavenHome != null && Files.isExecutable(Path.of(mavenHome, "bin", "mvn"))
        ? Path.of(mavenHome, "bin", "mvn").toString()
        : "mvn";
  }

  /** The marker of the README's run command and of its output, the two blocks after it. */
  private static final String RUN_MARKER =
      "<!-- tested-by: examples/src/test/java/dev/idempotent/examples/ReadmeSnippetsBuildTest.java"
          + " -->";

  /** The README's run command and the output it shows, in that order. */
  private static List<String> runBlocks() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md")).replace("\r\n", "\n");
    Matcher m =
        Pattern.compile(Pattern.quote(RUN_MARKER) + "\\n```\\n(.*?)\\n```", Pattern.DOTALL)
            .matcher(readme);
    List<String> found = new ArrayList<>();
    while (m.find()) {
      found.add(m.group(1));
    }
    assertThat(found)
        .as("the README's run command and its output, marked %s", RUN_MARKER)
        .hasSize(2);
    return found;
  }

  /** Splits a shell command line on blanks, keeping double-quoted words together. */
  private static List<String> words(String commandLine) {
    List<String> words = new ArrayList<>();
    Matcher m = Pattern.compile("([^\\s\"]*\"[^\"]*\"[^\\s\"]*|\\S+)").matcher(commandLine);
    while (m.find()) {
      words.add(m.group(1).replace("\"", ""));
    }
    return words;
  }

  /**
   * Runs the README's run command in the built project, as a user would type it (with the test's
   * settings and local repository), and returns what it printed.
   */
  private static String runTheReadmeCommand(Path project, Path jdk) throws Exception {
    List<String> words = words(runBlocks().get(0).strip());
    assertThat(words.get(0)).isEqualTo("mvn");
    List<String> command = new ArrayList<>();
    command.add(mvn());
    command.add("-B");
    command.add("-nsu");
    command.add("-s");
    command.add(work.resolve("settings.xml").toString());
    command.add("-Dmaven.repo.local=" + work.resolve("repo"));
    command.addAll(words.subList(1, words.size()));
    Path log = project.resolve("readme-run-" + jdk.getFileName() + ".log");
    run(project, jdk, log, command.toArray(String[]::new));
    // the program's own lines, without the terminal's colour codes; around them the library's log
    // lines (slf4j-simple: "[thread] LEVEL ...") and, on a new JDK, the JVM's warnings about
    // Maven's own libraries are allowed: the README shows what the program prints
    return Files.readAllLines(log).stream()
        .map(line -> line.replaceAll("\u001B\\[[0-9;]*m", "").stripTrailing())
        .filter(line -> !line.isEmpty())
        .collect(java.util.stream.Collectors.joining("\n"));
  }

  /** The README's plugins without aspectj-maven-plugin: a build that forgot to weave. */
  private static List<String> pluginsWithoutWeaving() {
    List<String> plugins = new ArrayList<>();
    for (String block : block("consumer", "plugins")) {
      String without =
          block.replaceAll("(?s)<plugin>\\s*<groupId>dev\\.aspectj</groupId>.*?</plugin>", "");
      assertThat(without).as("the README's plugins name aspectj-maven-plugin").isNotEqualTo(block);
      plugins.add(without);
    }
    return plugins;
  }

  /** Builds the README's project without the weaving plugin; returns the failed build's log. */
  private static String buildWithoutWeaving(Path jdk) throws Exception {
    Path project =
        project(
            "readme-unwoven-" + jdk.getFileName(),
            block("consumer", "dependencies"),
            pluginsWithoutWeaving(),
            sources("consumer"),
            README_CHECK);
    Path log = project.resolve("build-" + jdk.getFileName() + ".log");
    int exit =
        exitOf(
            project,
            jdk,
            log,
            mvn(),
            "-B",
            "-q",
            "-nsu",
            "-s",
            work.resolve("settings.xml").toString(),
            "-Dmaven.repo.local=" + work.resolve("repo"),
            "verify");
    String output = Files.readString(log);
    assertThat(exit).as("a build without weaving fails:\n%s", output).isNotZero();
    return output;
  }

  private static final String README_CHECK =
      "    var callbacks = new com.example.quickstart.PaymentCallbacks();\n"
          + "    expect(callbacks.capture(\"pay-1\", 1200), \"captured pay-1, 1200 cents (capture"
          + " 1)\");\n"
          + "    expect(callbacks.capture(\"pay-1\", 1200), \"captured pay-1, 1200 cents (capture"
          + " 1)\");\n"
          + "    expect(callbacks.capture(\"pay-2\", 5), \"captured pay-2, 5 cents (capture"
          + " 2)\");\n"
          + "    com.example.orders.OrderEndpoint orders = new"
          + " com.example.orders.OrderEndpoint();\n"
          + "    var request = new com.example.orders.OrderEndpoint.OrderRequest(\"book\", 1);\n"
          + "    expect(orders.submit(\"k1\", request).orderId(), \"ord-1\");\n"
          + "    expect(orders.submit(\"k1\", request).orderId(), \"ord-1\");\n"
          + "    expect(orders.submit(\"k2\", request).orderId(), \"ord-2\");\n";

  private static final String LOMBOK_CHECK =
      "    com.example.shipping.Shipments shipments = new"
          + " com.example.shipping.Shipments(\"wh-1\");\n"
          + "    var request = new com.example.shipping.Shipments.ShipRequest(\"ord-7\", \"1 Main"
          + " St\");\n"
          + "    expect(shipments.printLabel(request), \"wh-1:ord-7\");\n"
          + "    expect(shipments.printLabel(request), \"wh-1:ord-7\");\n"
          + "    expect(shipments.getLabelsPrinted(), 1);\n";

  private static Path readmeProject(Path jdk) throws IOException {
    return project(
        "readme-consumer-" + jdk.getFileName(),
        block("consumer", "dependencies"),
        block("consumer", "plugins"),
        sources("consumer"),
        README_CHECK);
  }

  private static Path lombokProject(Path jdk) throws IOException {
    List<String> dependencies = new ArrayList<>(block("consumer", "dependencies"));
    dependencies.addAll(block("consumer-lombok", "dependencies"));
    return project(
        "lombok-consumer-" + jdk.getFileName(),
        dependencies,
        block("consumer-lombok", "plugins"),
        sources("consumer-lombok"),
        LOMBOK_CHECK);
  }

  @Test
  void theReadmeSetupBuildsWeavesAndRunsOnJava17() throws Exception {
    Path project = readmeProject(jdk17());
    assertThat(buildAndRun(project, jdk17())).contains("CHECK OK");
    assertThat(runTheReadmeCommand(project, jdk17())).contains(runBlocks().get(1).strip());
  }

  @Test
  void theReadmeSetupBuildsWeavesAndRunsOnJava25() throws Exception {
    Path jdk = jdk25();
    Path project = readmeProject(jdk);
    assertThat(buildAndRun(project, jdk)).contains("CHECK OK");
    assertThat(runTheReadmeCommand(project, jdk)).contains(runBlocks().get(1).strip());
  }

  @Test
  void theReadmeSetupWithoutTheWeavingPluginFailsTheBuildOnJava17() throws Exception {
    assertThat(buildWithoutWeaving(jdk17()))
        .contains("@Idempotent method(s) not woven")
        .contains("com.example.quickstart.PaymentCallbacks.capture(");
  }

  @Test
  void theReadmeSetupWithoutTheWeavingPluginFailsTheBuildOnJava25() throws Exception {
    // javac 23 and later run no processor found on the class path: the check reads the classes
    assertThat(buildWithoutWeaving(jdk25()))
        .contains("@Idempotent method(s) not woven")
        .contains("com.example.quickstart.PaymentCallbacks.capture(");
  }

  @Test
  void theLombokBuildInDocsWeavesAndRunsOnJava17() throws Exception {
    assertThat(buildAndRun(lombokProject(jdk17()), jdk17())).contains("CHECK OK");
  }

  @Test
  void theLombokBuildInDocsWeavesAndRunsOnJava25() throws Exception {
    Path jdk = jdk25();
    assertThat(buildAndRun(lombokProject(jdk), jdk)).contains("CHECK OK");
  }
}
