package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.internal.WovenMethods;
import dev.idempotent.internal.processor.IdempotentProcessor;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A class compiled by plain javac (with the processor, as any build that has idempotent-core on its
 * class path) but never woven is reported at the library's first use and by {@link
 * Idempotency#verify()}.
 */
class UnwovenMethodReportTest {
  private static final String ORDERS =
      """
      package unwoven;

      public class Orders {
        @dev.idempotent.Idempotent(key = "#id")
        public String submit(String id) { return id; }

        public String other(String id) { return id; }
      }
      """;

  @TempDir Path classes;
  private URLClassLoader loader;
  private ClassLoader previous;

  @BeforeEach
  void compileUnwovenClass() throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaFileObject source =
        new SimpleJavaFileObject(
            java.net.URI.create("string:///unwoven/Orders.java"), JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return ORDERS;
          }
        };
    JavaCompiler.CompilationTask task =
        javac.getTask(
            null,
            null,
            diagnostics,
            List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path")),
            null,
            List.of(source));
    task.setProcessors(List.of(new IdempotentProcessor()));
    assertThat(task.call())
        .as(
            diagnostics.getDiagnostics().stream()
                .map(d -> d.getMessage(Locale.ROOT))
                .collect(Collectors.joining("\n")))
        .isTrue();
    loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
    previous = Thread.currentThread().getContextClassLoader();
    Thread.currentThread().setContextClassLoader(loader);
  }

  @AfterEach
  void restore() throws IOException {
    Thread.currentThread().setContextClassLoader(previous);
    loader.close();
  }

  private static IdempotencyConfig.Builder config() {
    return IdempotencyConfig.builder().defaultStore(new TestStore());
  }

  @Test
  void theRecordedMethodOfAnUnwovenClassIsReported() {
    assertThat(WovenMethods.unwoven(loader))
        .containsExactly("unwoven.Orders.submit(java.lang.String)");
  }

  @Test
  void firstUseFailsWhenWovenMethodsAreRequired() {
    assertThatThrownBy(() -> Idempotency.create(config().requireWoven(true).build()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("1 @Idempotent method(s) not woven")
        .hasMessageContaining("unwoven.Orders.submit(java.lang.String)")
        .hasMessageContaining("aspectj-maven-plugin");
  }

  @Test
  void verifyFailsWhenWovenMethodsAreRequiredAndOtherwiseOnlyWarns() {
    Idempotency lenient = Idempotency.create(config().build());
    assertThat(lenient.verify()).isSameAs(lenient);

    assertThatThrownBy(() -> Idempotency.create(config().requireWoven(true).build()).verify())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("unwoven.Orders.submit(java.lang.String)");
  }

  @Test
  void theBuildCheckFailsOnTheUnwovenMethod() {
    assertThatThrownBy(() -> WovenMethods.main(new String[0]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "1 @Idempotent method(s) not woven: unwoven.Orders.submit(java.lang.String)");
  }

  @Test
  void aClassLoaderWithoutRecordsReportsNothing() {
    assertThat(WovenMethods.unwoven(getClass().getClassLoader())).isEmpty();
  }
}
