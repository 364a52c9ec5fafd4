package dev.idempotent.internal;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run-time half of "an unwoven method is reported": the annotation processor records every
 * {@code @Idempotent} method it compiles in {@value #RESOURCE} (one per class output, so one per
 * jar or directory; all of them are read through {@link ClassLoader#getResources}), and this class
 * finds the recorded methods that are not woven.
 *
 * <p>A method counts as woven when its class declares the method ajc generates for an around advice
 * on it, {@code <name>_aroundBody<n>} (the original body, which the advice proceeds to); this holds
 * for compile-time, post-compile (binary) and load-time weaving alike. A class that cannot be
 * loaded, or that no longer declares the method (a stale record), is skipped.
 */
public final class WovenMethods {
  /**
   * Where the processor records the methods of one class output: lines {@code
   * class<TAB>method<TAB>(types)}.
   */
  public static final String RESOURCE = "META-INF/idempotent/methods";

  private static final String AROUND_BODY = "_aroundBody";

  /** Methods already warned about in this JVM, so each is logged once. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  /** The first report per class loader; the library's first use in it. */
  private static final Map<ClassLoader, List<String>> FIRST_REPORTS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private WovenMethods() {}

  /**
   * The logger, made on first use: the annotation processor uses this class inside javac, and the
   * build-time check runs on the compile class path, where no SLF4J provider is bound and SLF4J
   * would warn about it.
   */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger(WovenMethods.class);
  }

  /** One recorded line for a method. */
  public static String describe(String className, String methodName, List<String> parameterTypes) {
    return className + '\t' + methodName + "\t(" + String.join(", ", parameterTypes) + ")";
  }

  /**
   * The recorded methods, visible to {@code loader}, whose classes were not woven, as {@code
   * com.example.Orders.submit(com.example.OrderRequest)}.
   */
  public static List<String> unwoven(ClassLoader loader) {
    List<String> unwoven = new ArrayList<>();
    for (String line : recorded(loader)) {
      String[] parts = line.split("\t", 3);
      if (parts.length != 3) {
        continue;
      }
      String className = parts[0];
      String methodName = parts[1];
      Class<?> type;
      try {
        type = Class.forName(className, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        Log.LOG.debug("cannot check whether {} is woven: {}", className, e.toString());
        continue;
      }
      Boolean woven = isWoven(type, methodName);
      if (woven != null && !woven) {
        unwoven.add(className + "." + methodName + parts[2]);
      }
    }
    return unwoven;
  }

  /**
   * {@link #unwoven} for the thread's context class loader (or this library's), each method logged
   * as a WARN once per JVM.
   */
  public static List<String> report() {
    return report(loader());
  }

  /** {@link #report()}, worked out once per class loader: for the library's first use. */
  public static List<String> reportOnce() {
    return FIRST_REPORTS.computeIfAbsent(loader(), WovenMethods::report);
  }

  /** The exception for {@code unwoven} methods when woven methods are required. */
  public static String requiredMessage(List<String> unwoven) {
    return unwoven.size()
        + " @Idempotent method(s) not woven, and idempotent.require-woven is set: "
        + String.join(", ", unwoven)
        + ". "
        + advice();
  }

  private static List<String> report(ClassLoader loader) {
    List<String> unwoven = List.copyOf(unwoven(loader));
    for (String method : unwoven) {
      if (WARNED.add(method)) {
        Log.LOG.warn(
            "@Idempotent on {} is not woven: calls run without idempotency protection. {}",
            method,
            advice());
      }
    }
    return unwoven;
  }

  /**
   * The build-time check: fails when a method recorded on the class path of the running JVM (its
   * context class loader) is not woven, so a build step can refuse to package unwoven classes, for
   * example with {@code exec-maven-plugin}'s {@code java} goal in the {@code process-classes} phase
   * (see docs/weaving.md).
   *
   * <p>Each argument names a class output directory (the module's {@code
   * ${project.build.outputDirectory}}) whose classes are read as well: every class file that
   * carries {@code @Idempotent} is checked whether or not the annotation processor ran, so a build
   * without ajc is caught even where javac ran no processor (JDK 23 and later run none found on the
   * class path unless asked to).
   *
   * @throws IllegalStateException listing the unwoven methods
   */
  public static void main(String[] args) {
    ClassLoader loader = loader();
    Set<String> unwoven = new LinkedHashSet<>(unwoven(loader));
    for (String directory : args) {
      try {
        unwoven.addAll(unwovenIn(Path.of(directory), loader, unwoven));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the classes of " + directory, e);
      }
    }
    if (!unwoven.isEmpty()) {
      throw new IllegalStateException(
          unwoven.size()
              + " @Idempotent method(s) not woven: "
              + String.join(", ", unwoven)
              + ". "
              + advice());
    }
    // A check that passes says nothing (a build with -q prints nothing of it) and so starts no
    // logging.
  }

  /**
   * The unwoven {@code @Idempotent} methods of the class files under {@code directory}, skipping
   * those {@code known} already names (by class and method).
   */
  static List<String> unwovenIn(Path directory, ClassLoader loader, Set<String> known)
      throws IOException {
    List<String> unwoven = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return unwoven;
    }
    Set<String> knownMethods = new HashSet<>();
    for (String description : known) {
      int paren = description.indexOf('(');
      knownMethods.add(paren < 0 ? description : description.substring(0, paren));
    }
    byte[] annotation = ANNOTATION_DESCRIPTOR.getBytes(StandardCharsets.UTF_8);
    List<Path> classFiles;
    try (Stream<Path> files = Files.walk(directory)) {
      classFiles =
          files.filter(f -> f.toString().endsWith(".class")).sorted().collect(Collectors.toList());
    }
    for (Path file : classFiles) {
      if (!contains(Files.readAllBytes(file), annotation)) {
        continue;
      }
      String relative = directory.relativize(file).toString().replace(File.separatorChar, '/');
      String className = relative.substring(0, relative.length() - ".class".length());
      Class<?> type;
      try {
        type = Class.forName(className.replace('/', '.'), false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        Log.LOG.debug("cannot check whether {} is woven: {}", className, e.toString());
        continue;
      }
      Method[] methods;
      try {
        methods = type.getDeclaredMethods();
      } catch (LinkageError | SecurityException e) {
        continue;
      }
      for (Method m : methods) {
        if (!annotated(m)
            || knownMethods.contains(type.getName() + "." + m.getName())
            || !Boolean.FALSE.equals(isWoven(type, m.getName()))) {
          continue;
        }
        List<String> parameters = new ArrayList<>();
        for (Class<?> parameter : m.getParameterTypes()) {
          parameters.add(parameter.getTypeName());
        }
        unwoven.add(type.getName() + "." + m.getName() + "(" + String.join(", ", parameters) + ")");
      }
    }
    return unwoven;
  }

  private static final String ANNOTATION_DESCRIPTOR = "Ldev/idempotent/Idempotent;";

  private static boolean annotated(Method method) {
    for (java.lang.annotation.Annotation a : method.getDeclaredAnnotations()) {
      if (a.annotationType().getName().equals("dev.idempotent.Idempotent")) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(byte[] bytes, byte[] wanted) {
    outer:
    for (int i = 0; i <= bytes.length - wanted.length; i++) {
      for (int j = 0; j < wanted.length; j++) {
        if (bytes[i + j] != wanted[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** What to do about an unwoven method, for messages. */
  public static String advice() {
    return "Compile the module with aspectj-maven-plugin naming idempotent-core as an aspectLibrary"
        + " (an IDE build must delegate to Maven), or weave it at load time; see"
        + " docs/weaving.md";
  }

  private static Boolean isWoven(Class<?> type, String methodName) {
    Method[] methods;
    try {
      methods = type.getDeclaredMethods();
    } catch (LinkageError | SecurityException e) {
      Log.LOG.debug("cannot check whether {} is woven: {}", type.getName(), e.toString());
      return null;
    }
    boolean declared = false;
    String prefix = methodName + AROUND_BODY;
    for (Method m : methods) {
      String name = m.getName();
      if (name.equals(methodName)) {
        declared = true;
      } else if (name.startsWith(prefix) && isDigits(name, prefix.length())) {
        return true;
      }
    }
    return declared ? false : null;
  }

  private static boolean isDigits(String s, int from) {
    if (from >= s.length()) {
      return false;
    }
    for (int i = from; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static Set<String> recorded(ClassLoader loader) {
    Set<String> lines = new LinkedHashSet<>();
    Enumeration<URL> resources;
    try {
      resources = loader.getResources(RESOURCE);
    } catch (IOException e) {
      Log.LOG.debug("cannot list {}: {}", RESOURCE, e.toString());
      return lines;
    }
    for (URL url : Collections.list(resources)) {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(url.openStream(), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (!line.isBlank()) {
            lines.add(line);
          }
        }
      } catch (IOException e) {
        Log.LOG.debug("cannot read {}: {}", url, e.toString());
      }
    }
    return lines;
  }

  private static ClassLoader loader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : WovenMethods.class.getClassLoader();
  }
}
