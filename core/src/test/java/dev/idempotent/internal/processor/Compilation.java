package dev.idempotent.internal.processor;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import javax.annotation.processing.Processor;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles small sources with javac and the processor into a directory, as a consumer's build
 * would.
 */
final class Compilation {
  final boolean success;
  final List<Diagnostic<? extends JavaFileObject>> diagnostics;
  final Path output;

  private Compilation(
      boolean success, List<Diagnostic<? extends JavaFileObject>> diagnostics, Path output) {
    this.success = success;
    this.diagnostics = diagnostics;
    this.output = output;
  }

  /**
   * Sources by binary class name, compiled with {@link IdempotentProcessor} (or none) into {@code
   * output}.
   */
  static Compilation of(Path output, Processor processor, Map<String, String> sources)
      throws IOException {
    return of(output, processor, sources, List.of());
  }

  /** {@link #of(Path, Processor, Map)} with more javac options ({@code -A...}). */
  static Compilation of(
      Path output, Processor processor, Map<String, String> sources, List<String> moreOptions)
      throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> collector = new DiagnosticCollector<>();
    List<JavaFileObject> units = new ArrayList<>();
    sources.forEach((name, text) -> units.add(new Source(name, text)));
    Files.createDirectories(output);
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(collector, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options =
          new ArrayList<>(
              List.of(
                  "-d",
                  output.toString(),
                  "-classpath",
                  System.getProperty("java.class.path"),
                  "-parameters"));
      options.addAll(moreOptions);
      JavaCompiler.CompilationTask task =
          javac.getTask(null, files, collector, options, null, units);
      task.setProcessors(processor == null ? List.of() : List.of(processor));
      boolean success = task.call();
      return new Compilation(success, collector.getDiagnostics(), output);
    }
  }

  List<Diagnostic<? extends JavaFileObject>> errors() {
    return of(Diagnostic.Kind.ERROR);
  }

  List<Diagnostic<? extends JavaFileObject>> warnings() {
    return of(Diagnostic.Kind.WARNING, Diagnostic.Kind.MANDATORY_WARNING);
  }

  private List<Diagnostic<? extends JavaFileObject>> of(Diagnostic.Kind... kinds) {
    List<Diagnostic.Kind> wanted = List.of(kinds);
    return diagnostics.stream()
        .filter(d -> wanted.contains(d.getKind()))
        .collect(Collectors.toList());
  }

  @Override
  public String toString() {
    return diagnostics.stream()
        .map(
            d ->
                d.getKind()
                    + " "
                    + d.getLineNumber()
                    + ":"
                    + d.getColumnNumber()
                    + " "
                    + d.getMessage(Locale.ROOT))
        .collect(Collectors.joining("\n"));
  }

  private static final class Source extends SimpleJavaFileObject {
    private final String text;

    Source(String binaryName, String text) {
      super(
          URI.create("string:///" + binaryName.replace('.', '/') + Kind.SOURCE.extension),
          Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
