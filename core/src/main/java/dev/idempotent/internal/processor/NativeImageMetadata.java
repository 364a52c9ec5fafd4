package dev.idempotent.internal.processor;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;

/**
 * The GraalVM reachability metadata ({@code reachability-metadata.json}, reflection section) of the
 * {@code @Idempotent} methods one compilation sees, each entry under the condition that the
 * method's class is reached:
 *
 * <ul>
 *   <li>the types whose members key and payload expressions read (by {@code getMethod}, {@code
 *       getField}, record components and method handles): their public and declared methods and
 *       fields;
 *   <li>the classes of the recorded results (the declared result type, the values of {@code
 *       CompletionStage}, {@code Mono} and {@code Flux}, type arguments, array components, and, for
 *       the application's own classes, the types of their fields and getters): constructors,
 *       methods and fields for the Jackson codecs, and {@code serializable} for the Java
 *       serialization codec when the class implements {@code java.io.Serializable}.
 * </ul>
 *
 * <p>Also the classes with {@code @Idempotent} methods and those methods, with their parameter
 * types (AspectJ's join point loads them by name and looks the method up), key resolver classes and
 * the {@code recordFailures} classes (the library makes them by their constructors).
 *
 * <p>JDK types among the results are listed by their declared type only: the implementation a
 * result holds at run time (an {@code ImmutableCollections.ListN} for a {@code List}) is not known
 * here. The output is sorted, so the same sources give the same bytes.
 */
final class NativeImageMetadata {
  /** Where GraalVM reads it: {@value}{@code <name>/reachability-metadata.json}. */
  static final String DIRECTORY = "META-INF/native-image/dev.idempotent/generated/";

  static final String FILE = "reachability-metadata.json";

  private static final int MAX_DEPTH = 8;

  private final ProcessingEnvironment env;

  /** Per condition (the class of an {@code @Idempotent} method), per type, what it needs. */
  private final Map<String, Map<String, Need>> entries = new TreeMap<>();

  /** What one type needs under one condition. */
  private static final class Need {
    /** Its methods and fields are read by reflection. */
    boolean reflect;

    /** Its instances are made by reflection (a codec reading a result, a key resolver). */
    boolean construct;

    /** Java serialization reads it back. */
    boolean serializable;

    /** Its {@code @Idempotent} methods, as JSON objects: the aspect looks them up by reflection. */
    final Set<String> methods = new TreeSet<>();
  }

  NativeImageMetadata(ProcessingEnvironment env) {
    this.env = env;
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The types a key or payload expression of a method of {@code owner} reads. */
  void keyReads(String owner, Set<String> types) {
    for (String type : types) {
      need(owner, type).reflect = true;
    }
  }

  /**
   * An {@code @Idempotent} method: AspectJ's join point names its class and parameter types, which
   * it loads by name, and looks the method up (for its annotation) by reflection.
   */
  void method(String owner, ExecutableElement method) {
    StringBuilder json = new StringBuilder();
    json.append("{\"name\": \"").append(method.getSimpleName()).append("\", \"parameterTypes\": [");
    boolean first = true;
    for (VariableElement parameter : method.getParameters()) {
      String name = typeName(env.getTypeUtils().erasure(parameter.asType()));
      json.append(first ? "" : ", ").append('"').append(name).append('"');
      first = false;
      String element = name.replace("[]", "");
      if (element.contains(".")) {
        need(owner, element);
      }
    }
    json.append("]}");
    need(owner, owner).methods.add(json.toString());
  }

  /** The name GraalVM's metadata uses for a type: binary names, arrays as {@code X[]}. */
  private String typeName(TypeMirror type) {
    if (type instanceof ArrayType array) {
      return typeName(array.getComponentType()) + "[]";
    }
    if (type.getKind() == TypeKind.DECLARED) {
      return env.getElementUtils()
          .getBinaryName((TypeElement) ((DeclaredType) type).asElement())
          .toString();
    }
    return type.toString();
  }

  /** A class the library instantiates by its no-argument constructor (a {@code keyResolver}). */
  void instantiated(String owner, String type) {
    Need need = need(owner, type);
    need.reflect = true;
    need.construct = true;
  }

  /** The classes a result of {@code method} of {@code owner} is made of. */
  void result(String owner, ExecutableElement method, Set<String> wrappers) {
    walk(owner, method.getReturnType(), wrappers, 0, new TreeSet<>());
  }

  private void walk(
      String owner, TypeMirror type, Set<String> wrappers, int depth, Set<String> seen) {
    if (depth > MAX_DEPTH) {
      return;
    }
    if (type instanceof ArrayType array) {
      walk(owner, array.getComponentType(), wrappers, depth + 1, seen);
      return;
    }
    if (type.getKind() != TypeKind.DECLARED
        || !(((DeclaredType) type).asElement() instanceof TypeElement element)) {
      return;
    }
    DeclaredType declared = (DeclaredType) type;
    String qualified = element.getQualifiedName().toString();
    for (TypeMirror argument : declared.getTypeArguments()) {
      walk(owner, argument, wrappers, depth + 1, seen);
    }
    if (wrappers.contains(qualified) || qualified.equals("java.lang.Object")) {
      return;
    }
    String binary = env.getElementUtils().getBinaryName(element).toString();
    if (!seen.add(binary)) {
      return;
    }
    boolean serializable = isSerializable(element);
    if (isJdk(qualified)) {
      // the JDK's own classes need no reflection by the codecs; Java serialization needs them named
      if (serializable && element.getKind() != ElementKind.INTERFACE) {
        need(owner, binary).serializable = true;
      }
      return;
    }
    Need need = need(owner, binary);
    need.reflect = true;
    need.construct = true;
    need.serializable |= serializable;
    for (VariableElement field : ElementFilter.fieldsIn(element.getEnclosedElements())) {
      if (!field.getModifiers().contains(Modifier.STATIC)) {
        walk(owner, field.asType(), wrappers, depth + 1, seen);
      }
    }
    for (ExecutableElement getter : ElementFilter.methodsIn(element.getEnclosedElements())) {
      String name = getter.getSimpleName().toString();
      if (getter.getModifiers().contains(Modifier.PUBLIC)
          && !getter.getModifiers().contains(Modifier.STATIC)
          && getter.getParameters().isEmpty()
          && (name.startsWith("get") || name.startsWith("is"))) {
        walk(owner, getter.getReturnType(), wrappers, depth + 1, seen);
      }
    }
    TypeMirror superclass = element.getSuperclass();
    if (superclass.getKind() == TypeKind.DECLARED
        && !isJdk(
            ((TypeElement) ((DeclaredType) superclass).asElement())
                .getQualifiedName()
                .toString())) {
      walk(owner, superclass, wrappers, depth + 1, seen);
    }
  }

  private boolean isSerializable(TypeElement element) {
    TypeElement serializable = env.getElementUtils().getTypeElement("java.io.Serializable");
    return serializable != null
        && env.getTypeUtils()
            .isAssignable(
                env.getTypeUtils().erasure(element.asType()),
                env.getTypeUtils().erasure(serializable.asType()));
  }

  private static boolean isJdk(String name) {
    return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.");
  }

  private Need need(String owner, String type) {
    return entries
        .computeIfAbsent(owner, o -> new TreeMap<>())
        .computeIfAbsent(type, t -> new Need());
  }

  /** The JSON text, entries sorted by type, then by condition. */
  String json() {
    Map<String, Map<String, Need>> byType = new TreeMap<>();
    entries.forEach(
        (owner, types) ->
            types.forEach(
                (type, need) ->
                    byType.computeIfAbsent(type, t -> new TreeMap<>()).put(owner, need)));
    StringBuilder out = new StringBuilder();
    out.append("{\n");
    out.append("  \"comment\": \"Written by the idempotent annotation processor from the")
        .append(" @Idempotent methods of this compilation: what their key expressions read and")
        .append(" what their results are made of.\",\n");
    out.append("  \"reflection\": [");
    boolean first = true;
    for (Map.Entry<String, Map<String, Need>> type : byType.entrySet()) {
      for (Map.Entry<String, Need> condition : type.getValue().entrySet()) {
        Need need = condition.getValue();
        out.append(first ? "\n" : ",\n");
        first = false;
        out.append("    {\n");
        out.append("      \"condition\": {\"typeReached\": \"")
            .append(condition.getKey())
            .append("\"},\n");
        out.append("      \"type\": \"").append(type.getKey()).append('"');
        if (need.construct) {
          out.append(",\n      \"allDeclaredConstructors\": true");
          out.append(",\n      \"allPublicConstructors\": true");
        }
        if (need.reflect) {
          out.append(",\n      \"allDeclaredMethods\": true");
          out.append(",\n      \"allPublicMethods\": true");
          out.append(",\n      \"allDeclaredFields\": true");
          out.append(",\n      \"allPublicFields\": true");
        }
        if (!need.methods.isEmpty()) {
          out.append(",\n      \"methods\": [\n        ")
              .append(String.join(",\n        ", need.methods))
              .append("\n      ]");
        }
        if (need.serializable) {
          out.append(",\n      \"serializable\": true");
        }
        out.append("\n    }");
      }
    }
    out.append(first ? "]\n" : "\n  ]\n");
    out.append("}\n");
    return out.toString();
  }

  /**
   * The directory name under {@link #DIRECTORY}: {@code name} when given (the processor option),
   * else the first package, in sorted order, of the classes with {@code @Idempotent} methods, so
   * that a module's metadata keeps its path from build to build and two modules' differ.
   */
  String directoryName(String name) {
    if (name != null && !name.isBlank()) {
      return name.strip();
    }
    String owner = entries.keySet().iterator().next();
    int dot = owner.lastIndexOf('.');
    return dot < 0 ? "default" : owner.substring(0, dot);
  }
}
