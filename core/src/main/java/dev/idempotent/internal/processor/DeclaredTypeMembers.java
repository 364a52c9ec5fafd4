package dev.idempotent.internal.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.PrimitiveType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Checks, at compile time, the property and method names of a key expression against the declared
 * types of the method's parameters, with the rules the runtime uses: {@code .name} is a public
 * getter {@code getName()}, {@code isName()} returning boolean, an accessor {@code name()}, or a
 * public field {@code name}; {@code .name()} is a public no-argument method that returns something;
 * on the application's own classes an accessor or a call must be a getter or a record accessor.
 *
 * <p>A name that is missing on a concrete declared type is an error. When the declared type is an
 * interface, an abstract class, {@code Object}, a type variable, or a class whose getters Lombok
 * generates, the runtime class may still have the name, so it is only a warning. Which JDK methods
 * an expression may call (the read-only list) is left to the runtime, which reports it on the first
 * call. Indexes ({@code [0]}, {@code ['k']}) end the check of a chain.
 *
 * <p>The expression's grammar and parameter names are already checked by {@code
 * KeyExpression.compile} when this runs; this class only scans the source for {@code
 * #parameter(.name)*} chains.
 */
final class DeclaredTypeMembers {
  private static final Set<String> NEVER =
      Set.of("getClass", "hashCode", "clone", "notify", "notifyAll", "wait", "finalize");

  /**
   * One problem found: an error (fails the build) or a warning, at a 1-based column of the
   * expression.
   */
  record Finding(boolean error, int column, String message) {}

  private final Types types;
  private final Elements elements;
  private final String source;
  private final ExecutableElement method;
  private final List<Finding> findings = new ArrayList<>();

  /** The binary names of the declared types whose members the expression reads. */
  private final Set<String> readTypes = new java.util.TreeSet<>();

  private DeclaredTypeMembers(ProcessingEnvironment env, String source, ExecutableElement method) {
    this.types = env.getTypeUtils();
    this.elements = env.getElementUtils();
    this.source = source;
    this.method = method;
  }

  /**
   * The problems of the names in {@code source}, an expression that compiles, over {@code method}'s
   * parameters.
   */
  static List<Finding> check(ProcessingEnvironment env, String source, ExecutableElement method) {
    return check(env, source, method, new java.util.TreeSet<>());
  }

  /**
   * {@link #check(ProcessingEnvironment, String, ExecutableElement)}, adding to {@code readTypes}
   * the binary names of the declared types whose members the expression reads at run time (by
   * reflection, which a native image must be told of).
   */
  static List<Finding> check(
      ProcessingEnvironment env, String source, ExecutableElement method, Set<String> readTypes) {
    DeclaredTypeMembers check = new DeclaredTypeMembers(env, source, method);
    check.scan();
    readTypes.addAll(check.readTypes);
    return check.findings;
  }

  private void scan() {
    int n = source.length();
    int i = 0;
    while (i < n) {
      char c = source.charAt(i);
      if (c == '\'' || c == '"') {
        i = skipString(i);
      } else if (c == '#') {
        int end = identifierEnd(i + 1);
        TypeMirror type = parameterType(source.substring(i + 1, end));
        i = chain(type, end);
      } else {
        i++;
      }
    }
  }

  /**
   * Walks {@code .name}, {@code ?.name} and {@code .name()} steps from {@code i}; returns where the
   * chain ends.
   */
  private int chain(TypeMirror start, int i) {
    TypeMirror type = start;
    boolean open = start != null && isOpen(start);
    while (true) {
      int j = skipWhitespace(i);
      if (source.startsWith("?.", j) && !source.startsWith("?.[", j)) {
        j += 2;
      } else if (j < source.length() && source.charAt(j) == '.') {
        j += 1;
      } else {
        return i;
      }
      j = skipWhitespace(j);
      int nameStart = j;
      j = identifierEnd(j);
      String name = source.substring(nameStart, j);
      boolean call = false;
      int k = skipWhitespace(j);
      if (k < source.length() && source.charAt(k) == '(') {
        k = skipWhitespace(k + 1);
        if (k < source.length() && source.charAt(k) == ')') {
          call = true;
          j = k + 1;
        }
      }
      if (type != null && !name.isEmpty()) {
        DeclaredType read = declared(type);
        if (read != null) {
          readTypes.add(elements.getBinaryName((TypeElement) read.asElement()).toString());
        }
        TypeMirror next =
            call
                ? call(type, name, nameStart + 1, open)
                : property(type, name, nameStart + 1, open);
        if (next != null && isOpen(next)) {
          open = true;
        }
        type = next;
      }
      i = j;
    }
  }

  private TypeMirror parameterType(String name) {
    List<? extends VariableElement> parameters = method.getParameters();
    for (VariableElement parameter : parameters) {
      if (parameter.getSimpleName().contentEquals(name)) {
        return parameter.asType();
      }
    }
    if (name.length() > 1 && (name.charAt(0) == 'p' || name.charAt(0) == 'a')) {
      try {
        int index = Integer.parseInt(name.substring(1));
        return index < parameters.size() ? parameters.get(index).asType() : null;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null; // #args
  }

  private TypeMirror property(TypeMirror type, String name, int column, boolean open) {
    if (type.getKind() == TypeKind.ARRAY) {
      if (name.equals("length")) {
        return types.getPrimitiveType(TypeKind.INT);
      }
      report(
          open,
          column,
          "'." + name + "' is not a property of an array (" + type + "); an array has .length");
      return null;
    }
    DeclaredType declared = declared(type);
    if (declared == null) {
      return null;
    }
    TypeElement element = (TypeElement) declared.asElement();
    String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
    String refused = null;
    ExecutableElement getter = publicMethod(element, "get" + capitalized);
    if (getter != null && getter.getReturnType().getKind() != TypeKind.VOID) {
      return returnType(declared, getter);
    }
    ExecutableElement is = publicMethod(element, "is" + capitalized);
    if (is != null && isBoolean(is.getReturnType())) {
      return returnType(declared, is);
    }
    ExecutableElement accessor = publicMethod(element, name);
    if (accessor != null && accessor.getReturnType().getKind() != TypeKind.VOID) {
      refused = refusal(element, accessor);
      if (refused == null) {
        return returnType(declared, accessor);
      }
    }
    for (VariableElement field : ElementFilter.fieldsIn(elements.getAllMembers(element))) {
      if (field.getSimpleName().contentEquals(name)
          && field.getModifiers().contains(Modifier.PUBLIC)
          && !field.getModifiers().contains(Modifier.STATIC)) {
        return types.asMemberOf(declared, field);
      }
    }
    String what =
        refused != null
            ? "'." + name + "' cannot be read on " + element.getQualifiedName() + ": " + refused
            : "'."
                + name
                + "' is not a property of "
                + element.getQualifiedName()
                + " (no public get"
                + capitalized
                + "(), is"
                + capitalized
                + "(), "
                + name
                + "() or field "
                + name
                + ")";
    report(open || isOpen(declared), column, what);
    return null;
  }

  private TypeMirror call(TypeMirror type, String name, int column, boolean open) {
    if (NEVER.contains(name)) {
      report(false, column, "'." + name + "()' is not allowed in a key expression");
      return null;
    }
    DeclaredType declared = declared(type);
    if (declared == null) {
      if (type.getKind() == TypeKind.ARRAY) {
        report(open, column, "'." + name + "()' cannot be called on an array (" + type + ")");
      }
      return null;
    }
    TypeElement element = (TypeElement) declared.asElement();
    ExecutableElement found = publicMethod(element, name);
    if (found == null || found.getReturnType().getKind() == TypeKind.VOID) {
      report(
          open || isOpen(declared),
          column,
          "'."
              + name
              + "()' is not a public no-argument method of "
              + element.getQualifiedName()
              + " that returns a value");
      return null;
    }
    String refused = refusal(element, found);
    if (refused != null) {
      report(
          open || isOpen(declared),
          column,
          "'." + name + "()' cannot be called on " + element.getQualifiedName() + ": " + refused);
      return null;
    }
    return returnType(declared, found);
  }

  /**
   * Null when the application's own class allows the call; the JDK's read-only list is the
   * runtime's to check.
   */
  private String refusal(TypeElement type, ExecutableElement method) {
    String name = method.getSimpleName().toString();
    TypeElement owner = (TypeElement) method.getEnclosingElement();
    if (name.equals("toString") || isJdk(owner)) {
      return null;
    }
    if (isGetter(method) || isRecordComponent(type, name)) {
      return null;
    }
    return name + "() is neither a getter nor a record accessor";
  }

  private boolean isGetter(ExecutableElement method) {
    String name = method.getSimpleName().toString();
    if (name.startsWith("get") && name.length() > 3) {
      return method.getReturnType().getKind() != TypeKind.VOID;
    }
    return name.startsWith("is") && name.length() > 2 && isBoolean(method.getReturnType());
  }

  private boolean isRecordComponent(TypeElement type, String name) {
    for (TypeElement t = type; t != null; t = superclass(t)) {
      if (t.getKind() == ElementKind.RECORD) {
        for (Element component : t.getRecordComponents()) {
          if (component.getSimpleName().contentEquals(name)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private TypeElement superclass(TypeElement type) {
    TypeMirror s = type.getSuperclass();
    return s.getKind() == TypeKind.DECLARED ? (TypeElement) ((DeclaredType) s).asElement() : null;
  }

  private ExecutableElement publicMethod(TypeElement type, String name) {
    for (ExecutableElement m : ElementFilter.methodsIn(elements.getAllMembers(type))) {
      if (m.getSimpleName().contentEquals(name)
          && m.getParameters().isEmpty()
          && m.getModifiers().contains(Modifier.PUBLIC)
          && !m.getModifiers().contains(Modifier.STATIC)) {
        return m;
      }
    }
    return null;
  }

  private TypeMirror returnType(DeclaredType owner, ExecutableElement m) {
    try {
      return ((ExecutableType) types.asMemberOf(owner, m)).getReturnType();
    } catch (IllegalArgumentException e) {
      return m.getReturnType();
    }
  }

  private boolean isBoolean(TypeMirror type) {
    return type.getKind() == TypeKind.BOOLEAN
        || type.getKind() == TypeKind.DECLARED && isNamed((DeclaredType) type, "java.lang.Boolean");
  }

  private DeclaredType declared(TypeMirror type) {
    if (type.getKind().isPrimitive()) {
      return (DeclaredType) types.boxedClass((PrimitiveType) type).asType();
    }
    return type.getKind() == TypeKind.DECLARED ? (DeclaredType) type : null;
  }

  /**
   * Whether the runtime class of a value of this declared type may have more members than the type
   * shows: an interface, an abstract class, {@code Object}, a type variable or wildcard, or a class
   * Lombok completes.
   */
  private boolean isOpen(TypeMirror type) {
    if (type.getKind() == TypeKind.TYPEVAR || type.getKind() == TypeKind.WILDCARD) {
      return true;
    }
    if (type.getKind() != TypeKind.DECLARED) {
      return false;
    }
    TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
    return element.getKind() == ElementKind.INTERFACE
        || element.getModifiers().contains(Modifier.ABSTRACT)
        || element.getQualifiedName().contentEquals("java.lang.Object")
        || lombokCompleted(element);
  }

  private static boolean lombokCompleted(TypeElement element) {
    if (hasLombokAnnotation(element)) {
      return true;
    }
    for (Element member : element.getEnclosedElements()) {
      if (hasLombokAnnotation(member)) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasLombokAnnotation(Element element) {
    for (AnnotationMirror annotation : element.getAnnotationMirrors()) {
      TypeElement type = (TypeElement) annotation.getAnnotationType().asElement();
      if (type.getQualifiedName().toString().startsWith("lombok.")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isNamed(DeclaredType type, String name) {
    return ((TypeElement) type.asElement()).getQualifiedName().contentEquals(name);
  }

  private boolean isJdk(TypeElement type) {
    String name = elements.getPackageOf(type).getQualifiedName().toString();
    return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.");
  }

  private void report(boolean warningOnly, int column, String message) {
    findings.add(
        new Finding(
            !warningOnly,
            column,
            message
                + (warningOnly
                    ? "; the declared type does not show it, so it is checked on the runtime class"
                        + " at the first call"
                    : "")));
  }

  private int skipString(int i) {
    char quote = source.charAt(i);
    int j = i + 1;
    while (j < source.length()) {
      char c = source.charAt(j);
      if (c == '\\') {
        j += 2;
      } else if (c == quote) {
        if (j + 1 < source.length() && source.charAt(j + 1) == quote) {
          j += 2;
        } else {
          return j + 1;
        }
      } else {
        j++;
      }
    }
    return j;
  }

  private int identifierEnd(int i) {
    int j = i;
    while (j < source.length() && Character.isJavaIdentifierPart(source.charAt(j))) {
      j++;
    }
    return j;
  }

  private int skipWhitespace(int i) {
    int j = i;
    while (j < source.length() && Character.isWhitespace(source.charAt(j))) {
      j++;
    }
    return j;
  }
}
