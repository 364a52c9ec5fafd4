package dev.idempotent.internal.processor;

import dev.idempotent.internal.RefusedResultTypes;
import dev.idempotent.internal.WovenMethods;
import dev.idempotent.internal.expression.ExpressionException;
import dev.idempotent.internal.expression.KeyExpression;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Messager;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.annotation.processing.SupportedOptions;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * The compile-time half of "an unwoven method is reported": runs under javac and ajc wherever
 * {@code idempotent-core} is on the class path, and for every {@code @Idempotent} method
 *
 * <ul>
 *   <li>fails the build when the method returns a deferred or one-shot container the library cannot
 *       record ({@link RefusedResultTypes}: a {@code Stream}, an {@code Iterator}, a {@code Future}
 *       that is not a {@code CompletionStage}, a {@code Publisher} that is not a {@code Mono} or
 *       {@code Flux}, a Kotlin {@code Flow}...), naming the type and what to return;
 *   <li>fails the build when the method is abstract (an interface or abstract method is never
 *       woven: AspectJ weaves the body of the implementing method, so the annotation belongs
 *       there);
 *   <li>compiles its {@code key} and {@code payload} expressions: a syntax error, an unknown
 *       parameter name or an out-of-range {@code #pN} is a compile error on the annotation, with
 *       the column in the expression;
 *   <li>checks the property and method names against the parameters' declared types ({@link
 *       DeclaredTypeMembers});
 *   <li>records the method in {@value WovenMethods#RESOURCE} of the class output, which the library
 *       reads at start-up to report the recorded methods whose classes were not woven.
 * </ul>
 *
 * <p>With {@code -Aidempotent.requireScope=true} it also fails the build for every
 * {@code @Idempotent} without an explicit {@code scope}, naming the method: the default scope is
 * the method's signature, which a rename or a new parameter changes, orphaning its records.
 *
 * <p>It warns when a method's result (or the value of its {@code CompletionStage}, {@code Mono} or
 * {@code Flux}, or a type argument of it) is a concrete class that does not implement {@code
 * java.io.Serializable}, a {@code record} for example: the default codec, Java serialization,
 * cannot record it, and the first call would fail. The warning names both fixes (implement {@code
 * Serializable}, or configure the Jackson codec). The codec is chosen at run time, so this is a
 * warning, not an error; {@code -Aidempotent.codec=jackson} (any codec but {@code java}) turns it
 * off for the compilation, {@code @SuppressWarnings("idempotent.codec")} for a method or class.
 *
 * <p>{@code @SuppressWarnings("idempotent")} on a method or class turns the expression checks off
 * there (the runtime still checks on the first call). It claims no annotation, so other processors
 * still see {@code @Idempotent}.
 */
@SupportedAnnotationTypes(IdempotentProcessor.ANNOTATION)
@SupportedOptions({
  IdempotentProcessor.REQUIRE_SCOPE,
  IdempotentProcessor.CODEC,
  IdempotentProcessor.NATIVE_IMAGE_NAME
})
public final class IdempotentProcessor extends AbstractProcessor {
  static final String ANNOTATION = "dev.idempotent.Idempotent";

  /**
   * The option ({@code -Aidempotent.requireScope=true}) that makes a missing or blank {@code scope}
   * a build error, so that no record's scope depends on a method's name and parameters.
   */
  static final String REQUIRE_SCOPE = "idempotent.requireScope";

  /**
   * The option ({@code -Aidempotent.codec=jackson}) saying which codec the application records
   * results with, as the property {@code idempotent.codec} does at run time: any value but {@code
   * java} turns the check for results Java serialization cannot record off.
   */
  static final String CODEC = "idempotent.codec";

  /**
   * The {@code @SuppressWarnings} name that turns the check for results Java serialization cannot
   * record off for a method or class (its results are recorded by another codec).
   */
  static final String CODEC_SUPPRESSION = "idempotent.codec";

  /**
   * The option ({@code -Aidempotent.nativeImageName=orders}) naming the directory of the generated
   * native-image metadata, {@value NativeImageMetadata#DIRECTORY}{@code <name>/}; by default the
   * first package of the classes with {@code @Idempotent} methods.
   */
  static final String NATIVE_IMAGE_NAME = "idempotent.nativeImageName";

  /** The result wrappers whose type arguments are what is recorded. */
  private static final Set<String> WRAPPERS =
      Set.of(
          "java.util.concurrent.CompletionStage",
          "java.util.concurrent.CompletableFuture",
          "reactor.core.publisher.Mono",
          "reactor.core.publisher.Flux");

  private static final String KEY_RESOLVER = "dev.idempotent.KeyResolver";

  /**
   * The {@code @SuppressWarnings} name that turns off the expression checks of a method or class.
   */
  static final String SUPPRESSION = "idempotent";

  private final Set<String> recorded = new TreeSet<>();

  private NativeImageMetadata nativeImage;

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    TypeElement idempotent = processingEnv.getElementUtils().getTypeElement(ANNOTATION);
    if (idempotent != null) {
      for (Element element : round.getElementsAnnotatedWith(idempotent)) {
        if (element.getKind() == ElementKind.METHOD) {
          check((ExecutableElement) element);
        }
      }
    }
    if (round.processingOver() && !recorded.isEmpty()) {
      write();
      writeNativeImageMetadata();
    }
    return false;
  }

  private void check(ExecutableElement method) {
    Messager messager = processingEnv.getMessager();
    AnnotationMirror annotation = mirror(method);
    TypeElement owner = (TypeElement) method.getEnclosingElement();
    if (method.getModifiers().contains(Modifier.ABSTRACT)) {
      messager.printMessage(
          Diagnostic.Kind.ERROR,
          "@Idempotent on the abstract method "
              + owner.getQualifiedName()
              + "."
              + method.getSimpleName()
              + " is never woven (AspectJ weaves method bodies): put @Idempotent on the"
              + " method that implements it",
          method,
          annotation);
      return;
    }
    String refusal = refusedResult(method);
    if (refusal != null) {
      messager.printMessage(
          Diagnostic.Kind.ERROR,
          "@Idempotent on "
              + owner.getQualifiedName()
              + "."
              + method.getSimpleName()
              + ": "
              + refusal,
          method,
          annotation);
    }
    if (refusal == null && checksCodec(method)) {
      checkSerializableResult(method, owner, annotation);
    }
    String ownerName = processingEnv.getElementUtils().getBinaryName(owner).toString();
    if (refusal == null) {
      nativeImage().result(ownerName, method, WRAPPERS);
      nativeImage().method(ownerName, method);
      AnnotationValue failures = value(annotation.getElementValues(), "recordFailures");
      if (failures != null && failures.getValue() instanceof List<?> listed) {
        for (Object failure : listed) {
          if (failure instanceof AnnotationValue v
              && v.getValue() instanceof DeclaredType failureType
              && failureType.asElement() instanceof TypeElement failureClass) {
            nativeImage()
                .instantiated(
                    ownerName,
                    processingEnv.getElementUtils().getBinaryName(failureClass).toString());
          }
        }
      }
    }
    Map<? extends ExecutableElement, ? extends AnnotationValue> values =
        annotation.getElementValues();
    AnnotationValue key = value(values, "key");
    AnnotationValue payload = value(values, "payload");
    AnnotationValue resolver = value(values, "keyResolver");
    AnnotationValue scope = value(values, "scope");
    if ((scope == null || ((String) scope.getValue()).isBlank())
        && Boolean.parseBoolean(processingEnv.getOptions().get(REQUIRE_SCOPE))) {
      messager.printMessage(
          Diagnostic.Kind.ERROR,
          "@Idempotent on "
              + owner.getQualifiedName()
              + "."
              + method.getSimpleName()
              + " has no scope, and this build requires one ("
              + REQUIRE_SCOPE
              + "): name it, e.g. @Idempotent(scope = \""
              + owner.getSimpleName().toString().toLowerCase(java.util.Locale.ROOT)
              + "."
              + method.getSimpleName()
              + "\", ...), so that renaming the method or changing its parameters keeps its"
              + " records",
          method,
          annotation);
    }
    boolean expressionKey =
        resolver == null || isNamed((TypeMirror) resolver.getValue(), KEY_RESOLVER);
    if (!expressionKey
        && resolver.getValue() instanceof DeclaredType resolverType
        && resolverType.asElement() instanceof TypeElement resolverClass) {
      nativeImage()
          .instantiated(
              ownerName, processingEnv.getElementUtils().getBinaryName(resolverClass).toString());
    }
    boolean checked = !suppressed(method, SUPPRESSION);
    if (checked && key != null && expressionKey) {
      checkExpression(method, ownerName, annotation, key, "key");
    }
    if (checked && payload != null && !"*".equals(payload.getValue())) {
      checkExpression(method, ownerName, annotation, payload, "payload");
    }
    recorded.add(
        WovenMethods.describe(
            processingEnv.getElementUtils().getBinaryName(owner).toString(),
            method.getSimpleName().toString(),
            parameterTypes(method)));
  }

  private boolean checksCodec(ExecutableElement method) {
    String codec = processingEnv.getOptions().get(CODEC);
    return (codec == null || codec.isBlank() || "java".equalsIgnoreCase(codec.strip()))
        && !suppressed(method, CODEC_SUPPRESSION);
  }

  /**
   * Warns when the recorded result holds a concrete class that is not {@code Serializable}: the
   * default codec refuses it at the first call.
   */
  private void checkSerializableResult(
      ExecutableElement method, TypeElement owner, AnnotationMirror annotation) {
    Set<String> offending = new TreeSet<>();
    notSerializable(method.getReturnType(), offending, 0);
    if (offending.isEmpty()) {
      return;
    }
    processingEnv
        .getMessager()
        .printMessage(
            Diagnostic.Kind.WARNING,
            "@Idempotent on "
                + owner.getQualifiedName()
                + "."
                + method.getSimpleName()
                + ": its result holds "
                + String.join(", ", offending)
                + ", which the default codec (Java serialization) cannot record: the first call"
                + " would fail. Implement java.io.Serializable, or configure the Jackson codec"
                + " (idempotent.codec=jackson, or IdempotencyConfig.builder().codec("
                + "ResultCodec.jackson())) and tell this check with -A"
                + CODEC
                + "=jackson or @SuppressWarnings(\""
                + CODEC_SUPPRESSION
                + "\")",
            method,
            annotation);
  }

  private void notSerializable(TypeMirror type, Set<String> offending, int depth) {
    if (depth > 4) {
      return;
    }
    if (type instanceof javax.lang.model.type.ArrayType array) {
      notSerializable(array.getComponentType(), offending, depth + 1);
      return;
    }
    if (!(type instanceof DeclaredType declared)
        || !(declared.asElement() instanceof TypeElement element)) {
      return;
    }
    String name = element.getQualifiedName().toString();
    if (!WRAPPERS.contains(name)) {
      ElementKind kind = element.getKind();
      boolean concrete =
          (kind == ElementKind.CLASS || kind == ElementKind.RECORD)
              && !element.getModifiers().contains(Modifier.ABSTRACT);
      TypeMirror serializable =
          processingEnv.getElementUtils().getTypeElement("java.io.Serializable").asType();
      if (concrete
          && !name.equals("java.lang.Object")
          && !processingEnv
              .getTypeUtils()
              .isAssignable(processingEnv.getTypeUtils().erasure(declared), serializable)) {
        offending.add(name);
      }
    }
    for (TypeMirror argument : declared.getTypeArguments()) {
      notSerializable(argument, offending, depth + 1);
    }
  }

  /** Why the method's result type cannot be recorded ({@link RefusedResultTypes}), or null. */
  private String refusedResult(ExecutableElement method) {
    TypeMirror returned = method.getReturnType();
    if (!(returned instanceof DeclaredType declared)) {
      return null;
    }
    Set<String> names = new java.util.HashSet<>();
    java.util.ArrayDeque<TypeMirror> todo = new java.util.ArrayDeque<>();
    todo.add(declared);
    while (!todo.isEmpty()) {
      TypeMirror t = todo.poll();
      if (t instanceof DeclaredType d && d.asElement() instanceof TypeElement e) {
        if (names.add(processingEnv.getElementUtils().getBinaryName(e).toString())) {
          todo.addAll(processingEnv.getTypeUtils().directSupertypes(t));
        }
      }
    }
    TypeElement type = (TypeElement) declared.asElement();
    return RefusedResultTypes.refusal(
        processingEnv.getElementUtils().getBinaryName(type).toString(), names);
  }

  private void checkExpression(
      ExecutableElement method,
      String ownerName,
      AnnotationMirror annotation,
      AnnotationValue value,
      String attribute) {
    String source = (String) value.getValue();
    if (source.isEmpty()) {
      return;
    }
    List<? extends VariableElement> parameters = method.getParameters();
    String[] names = new String[parameters.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = parameters.get(i).getSimpleName().toString();
    }
    Messager messager = processingEnv.getMessager();
    String where =
        "@Idempotent(" + attribute + " = \"" + source + "\") on " + method.getSimpleName() + ": ";
    try {
      KeyExpression.compile(source, names);
    } catch (ExpressionException | IllegalArgumentException e) {
      messager.printMessage(
          Diagnostic.Kind.ERROR, where + e.getMessage(), method, annotation, value);
      return;
    }
    List<DeclaredTypeMembers.Finding> findings;
    try {
      Set<String> reads = new TreeSet<>();
      findings = DeclaredTypeMembers.check(processingEnv, source, method, reads);
      nativeImage().keyReads(ownerName, reads);
    } catch (RuntimeException e) {
      messager.printMessage(
          Diagnostic.Kind.WARNING,
          where + "the property names could not be checked (" + e + "); the first call checks them",
          method,
          annotation,
          value);
      return;
    }
    for (DeclaredTypeMembers.Finding finding : findings) {
      messager.printMessage(
          finding.error() ? Diagnostic.Kind.ERROR : Diagnostic.Kind.WARNING,
          where + finding.message() + " (column " + finding.column() + " of the expression)",
          method,
          annotation,
          value);
    }
  }

  private List<String> parameterTypes(ExecutableElement method) {
    List<String> names = new ArrayList<>();
    for (VariableElement parameter : method.getParameters()) {
      names.add(processingEnv.getTypeUtils().erasure(parameter.asType()).toString());
    }
    return names;
  }

  private void write() {
    try {
      FileObject file =
          processingEnv
              .getFiler()
              .createResource(StandardLocation.CLASS_OUTPUT, "", WovenMethods.RESOURCE);
      try (Writer out = new OutputStreamWriter(file.openOutputStream(), StandardCharsets.UTF_8)) {
        for (String line : recorded) {
          out.write(line);
          out.write('\n');
        }
      }
    } catch (IOException | RuntimeException e) {
      processingEnv
          .getMessager()
          .printMessage(
              Diagnostic.Kind.WARNING,
              "could not write "
                  + WovenMethods.RESOURCE
                  + " ("
                  + e
                  + "): the library cannot report these @Idempotent methods if they are not woven");
    }
  }

  private NativeImageMetadata nativeImage() {
    if (nativeImage == null) {
      nativeImage = new NativeImageMetadata(processingEnv);
    }
    return nativeImage;
  }

  /**
   * Writes {@value NativeImageMetadata#DIRECTORY}{@code <name>/}{@value NativeImageMetadata#FILE}
   * of the class output, which GraalVM's {@code native-image} reads from the class path.
   */
  private void writeNativeImageMetadata() {
    if (nativeImage == null || nativeImage.isEmpty()) {
      return;
    }
    String path =
        NativeImageMetadata.DIRECTORY
            + nativeImage.directoryName(processingEnv.getOptions().get(NATIVE_IMAGE_NAME))
            + "/"
            + NativeImageMetadata.FILE;
    try {
      FileObject file =
          processingEnv.getFiler().createResource(StandardLocation.CLASS_OUTPUT, "", path);
      try (Writer out = new OutputStreamWriter(file.openOutputStream(), StandardCharsets.UTF_8)) {
        out.write(nativeImage.json());
      }
    } catch (IOException | RuntimeException e) {
      processingEnv
          .getMessager()
          .printMessage(
              Diagnostic.Kind.WARNING,
              "could not write "
                  + path
                  + " ("
                  + e
                  + "): a native image of this code needs that reflection metadata from elsewhere");
    }
  }

  /**
   * {@code @SuppressWarnings("idempotent")} on the method or a class around it turns the expression
   * checks off.
   */
  private static boolean suppressed(Element element, String name) {
    for (Element e = element; e != null; e = e.getEnclosingElement()) {
      SuppressWarnings suppress = e.getAnnotation(SuppressWarnings.class);
      if (suppress != null && Arrays.asList(suppress.value()).contains(name)) {
        return true;
      }
    }
    return false;
  }

  private static AnnotationMirror mirror(Element element) {
    for (AnnotationMirror m : element.getAnnotationMirrors()) {
      if (isNamed(m.getAnnotationType(), ANNOTATION)) {
        return m;
      }
    }
    throw new IllegalStateException(element + " has no @Idempotent");
  }

  private static AnnotationValue value(
      Map<? extends ExecutableElement, ? extends AnnotationValue> values, String name) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e : values.entrySet()) {
      if (e.getKey().getSimpleName().contentEquals(name)) {
        return e.getValue();
      }
    }
    return null;
  }

  private static boolean isNamed(TypeMirror type, String name) {
    return type instanceof DeclaredType declared
        && ((TypeElement) declared.asElement()).getQualifiedName().contentEquals(name);
  }
}
