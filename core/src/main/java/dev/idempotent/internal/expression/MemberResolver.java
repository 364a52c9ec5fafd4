package dev.idempotent.internal.expression;

import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds how to read {@code .name} or call {@code .name()} on a runtime class, once per class and
 * name (shared by all expressions through {@link ClassValue} maps).
 *
 * <p>A property is, in this order: a getter {@code getName()}, {@code isName()} returning boolean,
 * an accessor {@code name()} (records), a public field {@code name}; {@code .length} of an array. A
 * method is a public, non-static, no-argument method that does not return void. Only the calls
 * {@link ReadOnlyCalls} allows are made; any other is a reader that reports why. A method declared
 * in a non-public class is called through the public interface or superclass that declares it when
 * there is one. A method is read through a {@code LambdaMetafactory} function (as fast as a
 * hand-written call; through {@code MethodHandles.privateLookupIn} for a non-public class), else by
 * reflection after {@code setAccessible}, as fields always are.
 */
final class MemberResolver {
  private static final Logger LOG = LoggerFactory.getLogger(MemberResolver.class);
  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
  private static final MethodType FUNCTION_FACTORY = MethodType.methodType(Function.class);
  private static final MethodType APPLY = MethodType.methodType(Object.class, Object.class);
  private static final int MAX_LISTED = 20;

  private static final ClassValue<ConcurrentMap<String, MemberReader>> PROPERTIES =
      new ClassValue<>() {
        @Override
        protected ConcurrentMap<String, MemberReader> computeValue(Class<?> type) {
          return new ConcurrentHashMap<>();
        }
      };
  private static final ClassValue<ConcurrentMap<String, MemberReader>> METHODS =
      new ClassValue<>() {
        @Override
        protected ConcurrentMap<String, MemberReader> computeValue(Class<?> type) {
          return new ConcurrentHashMap<>();
        }
      };

  private MemberResolver() {}

  static MemberReader property(Class<?> type, String name) {
    ConcurrentMap<String, MemberReader> readers = PROPERTIES.get(type);
    MemberReader reader = readers.get(name);
    return reader != null ? reader : readers.computeIfAbsent(name, n -> resolveProperty(type, n));
  }

  static MemberReader method(Class<?> type, String name) {
    ConcurrentMap<String, MemberReader> readers = METHODS.get(type);
    MemberReader reader = readers.get(name);
    return reader != null ? reader : readers.computeIfAbsent(name, n -> resolveMethod(type, n));
  }

  private static MemberReader resolveProperty(Class<?> type, String name) {
    if (type.isArray() && name.equals("length")) {
      return MemberReader.of(type, Array::getLength);
    }
    String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
    String refused = null;
    Method getter = instanceMethod(type, "get" + capitalized);
    if (getter != null && getter.getReturnType() != void.class) {
      refused = ReadOnlyCalls.refusal(type, getter);
      if (refused == null) {
        return methodReader(type, getter);
      }
    }
    Method is = instanceMethod(type, "is" + capitalized);
    if (is != null
        && (is.getReturnType() == boolean.class || is.getReturnType() == Boolean.class)) {
      String refusal = ReadOnlyCalls.refusal(type, is);
      if (refusal == null) {
        return methodReader(type, is);
      }
      refused = refused == null ? refusal : refused;
    }
    Method accessor = instanceMethod(type, name);
    if (accessor != null && accessor.getReturnType() != void.class) {
      String refusal = ReadOnlyCalls.refusal(type, accessor);
      if (refusal == null) {
        return methodReader(type, accessor);
      }
      refused = refused == null ? refusal : refused;
    }
    Field field = instanceField(type, name);
    if (field != null) {
      return fieldReader(type, field);
    }
    if (refused != null) {
      return MemberReader.missing(
          type, "cannot be read on " + type.getName() + ": " + refused, ReadOnlyCalls.ALLOWED);
    }
    String hint = "readable properties: " + readableProperties(type);
    if (Map.class.isAssignableFrom(type)) {
      hint += "; for a map entry write ['" + name + "']";
    }
    return MemberReader.missing(type, "not found on " + type.getName(), hint);
  }

  private static MemberReader resolveMethod(Class<?> type, String name) {
    Method method = instanceMethod(type, name);
    if (method == null) {
      Method any = anyMethod(type, name);
      if (any != null && Modifier.isStatic(any.getModifiers())) {
        return MemberReader.missing(
            type, "is static on " + type.getName(), "static calls are not supported");
      }
      return MemberReader.missing(
          type,
          "not found on " + type.getName(),
          "only public methods without arguments can be called");
    }
    if (method.getReturnType() == void.class) {
      return MemberReader.missing(
          type, "returns void on " + type.getName(), "call a method that returns a value");
    }
    String refusal = ReadOnlyCalls.refusal(type, method);
    if (refusal != null) {
      return MemberReader.missing(
          type, "is not allowed on " + type.getName() + ": " + refusal, ReadOnlyCalls.ALLOWED);
    }
    return methodReader(type, method);
  }

  private static Method anyMethod(Class<?> type, String name) {
    try {
      return type.getMethod(name);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  private static Method instanceMethod(Class<?> type, String name) {
    Method method = anyMethod(type, name);
    return method == null || Modifier.isStatic(method.getModifiers()) ? null : method;
  }

  private static Field instanceField(Class<?> type, String name) {
    try {
      Field field = type.getField(name);
      return Modifier.isStatic(field.getModifiers()) ? null : field;
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  private static MemberReader methodReader(Class<?> type, Method method) {
    if (method.getDeclaringClass() == String.class && method.getName().equals("toUpperCase")) {
      return MemberReader.of(type, s -> ((String) s).toUpperCase(Locale.ROOT));
    }
    if (method.getDeclaringClass() == String.class && method.getName().equals("toLowerCase")) {
      return MemberReader.of(type, s -> ((String) s).toLowerCase(Locale.ROOT));
    }
    Method declaration = publicDeclaration(type, method);
    if (declaration != null && visibleFromHere(declaration.getDeclaringClass())) {
      try {
        return MemberReader.of(type, lambda(LOOKUP, declaration));
      } catch (Throwable e) {
        LOG.debug("no generated reader for {} through {}: {}", method, declaration, e.toString());
      }
    }
    MethodHandles.Lookup privateLookup = privateLookup(method.getDeclaringClass());
    if (privateLookup != null) {
      try {
        return MemberReader.of(type, lambda(privateLookup, method));
      } catch (Throwable e) {
        LOG.debug("no generated reader for {} in its own class: {}", method, e.toString());
      }
    }
    Method reflective = declaration != null ? declaration : method;
    if (reflective.trySetAccessible()) {
      LOG.debug("reading {} by reflection", reflective);
      return MemberReader.of(type, target -> invoke(reflective, target));
    }
    return inaccessible(type, method.getDeclaringClass());
  }

  private static MemberReader fieldReader(Class<?> type, Field field) {
    if (field.trySetAccessible()) {
      return MemberReader.of(type, target -> get(field, target));
    }
    return inaccessible(type, field.getDeclaringClass());
  }

  private static MemberReader inaccessible(Class<?> type, Class<?> owner) {
    return MemberReader.missing(
        type,
        "is not accessible on " + type.getName(),
        "make "
            + owner.getName()
            + " public, or open its package to "
            + LOOKUP.lookupClass().getModule());
  }

  /**
   * The method itself when its class is public API, else the same method in a public supertype,
   * else null.
   */
  private static Method publicDeclaration(Class<?> type, Method method) {
    if (isPublicApi(method.getDeclaringClass())) {
      return method;
    }
    Deque<Class<?>> pending = new ArrayDeque<>();
    Set<Class<?>> seen = new HashSet<>();
    pending.add(type);
    while (!pending.isEmpty()) {
      Class<?> candidate = pending.poll();
      if (!seen.add(candidate)) {
        continue;
      }
      if (isPublicApi(candidate)) {
        try {
          Method declared = candidate.getDeclaredMethod(method.getName());
          int modifiers = declared.getModifiers();
          if (Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers)) {
            return declared;
          }
        } catch (NoSuchMethodException e) {
          // keep looking in its supertypes
        }
      }
      if (candidate.getSuperclass() != null) {
        pending.add(candidate.getSuperclass());
      }
      for (Class<?> implemented : candidate.getInterfaces()) {
        pending.add(implemented);
      }
    }
    return null;
  }

  private static boolean isPublicApi(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (!Modifier.isPublic(c.getModifiers())) {
        return false;
      }
    }
    return type.getModule().isExported(type.getPackageName());
  }

  /** Whether a class generated in this package can link against {@code type} by name. */
  private static boolean visibleFromHere(Class<?> type) {
    if (type.getClassLoader() == null) {
      return true;
    }
    try {
      return Class.forName(type.getName(), false, MemberResolver.class.getClassLoader()) == type;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static MethodHandles.Lookup privateLookup(Class<?> type) {
    try {
      return MethodHandles.privateLookupIn(type, LOOKUP);
    } catch (IllegalAccessException | RuntimeException e) {
      LOG.debug("no private lookup in {}: {}", type.getName(), e.toString());
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static Function<Object, Object> lambda(MethodHandles.Lookup caller, Method method)
      throws Throwable {
    MethodHandle implementation = caller.unreflect(method);
    CallSite site =
        LambdaMetafactory.metafactory(
            caller,
            "apply",
            FUNCTION_FACTORY,
            APPLY,
            implementation,
            MethodType.methodType(Object.class, method.getDeclaringClass()));
    return (Function<Object, Object>) site.getTarget().invoke();
  }

  private static Object invoke(Method method, Object target) {
    try {
      return method.invoke(target);
    } catch (InvocationTargetException e) {
      throw MemberResolver.<RuntimeException>rethrow(e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object get(Field field, Object target) {
    try {
      return field.get(target);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Lets a getter's checked exception reach the node, which reports it as the cause. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T rethrow(Throwable e) throws T {
    throw (T) e;
  }

  /** Property names the class offers, for "not found" messages. */
  static String readableProperties(Class<?> type) {
    Set<String> names = new TreeSet<>();
    for (Method method : type.getMethods()) {
      if (Modifier.isStatic(method.getModifiers())
          || method.getParameterCount() != 0
          || method.getReturnType() == void.class
          || method.getDeclaringClass() == Object.class) {
        continue;
      }
      String name = method.getName();
      if (name.startsWith("get") && name.length() > 3) {
        names.add(decapitalize(name.substring(3)));
      } else if (name.startsWith("is")
          && name.length() > 2
          && (method.getReturnType() == boolean.class || method.getReturnType() == Boolean.class)) {
        names.add(decapitalize(name.substring(2)));
      }
    }
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        names.add(component.getName());
      }
    }
    for (Field field : type.getFields()) {
      if (!Modifier.isStatic(field.getModifiers())) {
        names.add(field.getName());
      }
    }
    if (type.isArray()) {
      names.add("length");
    }
    if (names.isEmpty()) {
      return "none";
    }
    StringBuilder listed = new StringBuilder();
    int count = 0;
    for (String name : names) {
      if (count == MAX_LISTED) {
        listed.append(", ...");
        break;
      }
      listed.append(count++ == 0 ? "" : ", ").append(name);
    }
    return listed.toString();
  }

  private static String decapitalize(String name) {
    if (name.length() > 1
        && Character.isUpperCase(name.charAt(0))
        && Character.isUpperCase(name.charAt(1))) {
      return name;
    }
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }
}
