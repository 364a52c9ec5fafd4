package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build-time check reads the class output itself: a class compiled by javac with no processor
 * (JDK 23 and later run none found on the class path) and no weaving is still reported.
 */
class WovenMethodsScanTest {
  @TempDir Path dir;

  private Path compiled() throws Exception {
    Path source = dir.resolve("src/demo/Payments.java");
    Files.createDirectories(source.getParent());
    Files.writeString(
        source,
        """
        package demo;

        public class Payments {
          @dev.idempotent.Idempotent(key = "#id")
          public String capture(String id) { return id; }

          public String plain(String id) { return id; }
        }
        """);
    Path classes = dir.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int exit =
        javac.run(
            null,
            null,
            null,
            "-proc:none",
            "-d",
            classes.toString(),
            "-classpath",
            System.getProperty("java.class.path"),
            source.toString());
    assertThat(exit).isZero();
    assertThat(classes.resolve(WovenMethods.RESOURCE)).doesNotExist();
    return classes;
  }

  @Test
  void anAnnotatedMethodCompiledWithoutProcessorOrWeavingIsFound() throws Exception {
    Path classes = compiled();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      List<String> unwoven = WovenMethods.unwovenIn(classes, loader, Set.of());
      assertThat(unwoven).containsExactly("demo.Payments.capture(java.lang.String)");
    }
  }

  @Test
  void theBuildStepFailsNamingTheMethodWhenGivenTheClassOutput() throws Exception {
    Path classes = compiled();
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      Thread.currentThread().setContextClassLoader(loader);
      assertThatThrownBy(() -> WovenMethods.main(new String[] {classes.toString()}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("1 @Idempotent method(s) not woven")
          .hasMessageContaining("demo.Payments.capture(java.lang.String)");
    } finally {
      Thread.currentThread().setContextClassLoader(context);
    }
  }
}
