package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What runs at build time, where the class path has SLF4J's API and no provider, starts no logging:
 * SLF4J would print its warning about the missing provider into the build's output. Each runs in a
 * JVM of its own, on the core's classes and the SLF4J API alone.
 */
class BuildTimeLoggingTest {
  @TempDir Path dir;

  @Test
  void theAnnotationProcessorInsideJavacPrintsNothing() throws Exception {
    Path source = dir.resolve("src/demo/Orders.java");
    Files.createDirectories(source.getParent());
    Files.writeString(
        source,
        """
        package demo;

        import dev.idempotent.Idempotent;

        public class Orders {
          @Idempotent(key = "#orderId")
          public String submit(String orderId) {
            return orderId;
          }
        }
        """);
    Path classes = Files.createDirectories(dir.resolve("classes"));

    Run javac =
        run(
            javaTool("javac"),
            "-proc:only",
            "-processor",
            "dev.idempotent.internal.processor.IdempotentProcessor",
            "-processorpath",
            buildClassPath(),
            "-cp",
            buildClassPath(),
            "-d",
            classes.toString(),
            source.toString());

    assertThat(javac.exit).as(javac.output).isZero();
    assertThat(javac.output).isEmpty();
    assertThat(classes.resolve(WovenMethods.RESOURCE)).as("the processor ran").exists();
  }

  @Test
  void theBuildCheckThatPassesPrintsNothing() throws Exception {
    Run check = run(javaTool("java"), "-cp", buildClassPath(), WovenMethods.class.getName());

    assertThat(check.exit).as(check.output).isZero();
    assertThat(check.output).isEmpty();
  }

  /** The core's classes and the SLF4J API: the compile class path of a module that uses core. */
  private static String buildClassPath() throws URISyntaxException {
    return location(WovenMethods.class) + File.pathSeparator + location(LoggerFactory.class);
  }

  private static String location(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  private static String javaTool(String name) {
    return Path.of(System.getProperty("java.home"), "bin", name).toString();
  }

  private record Run(int exit, String output) {}

  private Run run(String... command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(new ArrayList<>(List.of(command)))
            .redirectErrorStream(true)
            .directory(dir.toFile())
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return new Run(p.waitFor(), output);
  }
}
