package dev.idempotent.internal.codec;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link ClassAllowList} of each declared result type, shared by every codec that reads class
 * names from stored bytes (the Java serialization codec, the Jackson codecs' polymorphic type ids):
 * the classes of {@code java.lang}, {@code java.util}, {@code java.time}, {@code java.math}, {@code
 * java.net.URI}, the packages of the declared result type and its type arguments, and the
 * configured patterns; never a class of the deny-list.
 */
final class AllowListsByResultType {
  private static final List<String> BASE =
      List.of("java.lang.*", "java.util.*", "java.time.*", "java.math.*", "java.net.URI");

  private final String[] allowed;
  private final String codecName;
  private final String factory;
  private final ConcurrentHashMap<Type, ClassAllowList> byType = new ConcurrentHashMap<>();

  /**
   * Checks the patterns ({@link java.io.ObjectInputFilter}'s class-name forms); {@code codecName}
   * and {@code factory} name the codec in the refusal messages.
   */
  AllowListsByResultType(String[] allowedPatterns, String codecName, String factory) {
    for (String p : allowedPatterns) {
      if (p == null || p.isBlank() || p.contains(";") || p.startsWith("!")) {
        throw new IllegalArgumentException(
            "bad codec allow pattern '"
                + p
                + "': give one class or package pattern per entry, e.g. com.example.Order,"
                + " com.example.*, com.example.**");
      }
    }
    this.allowed = allowedPatterns.clone();
    this.codecName = codecName;
    this.factory = factory;
  }

  /** The allow-list of results declared as {@code type}. */
  ClassAllowList of(Type type) {
    ClassAllowList list = byType.get(type);
    return list != null ? list : byType.computeIfAbsent(type, this::allowListFor);
  }

  private ClassAllowList allowListFor(Type type) {
    Set<String> patterns = new LinkedHashSet<>(BASE);
    collectPackages(type, patterns, 0);
    patterns.addAll(Arrays.asList(allowed));
    return new ClassAllowList(List.copyOf(patterns), codecName, factory);
  }

  private static void collectPackages(Type type, Set<String> out, int depth) {
    if (depth > 8 || type == null) {
      return;
    }
    if (type instanceof Class<?> c) {
      while (c.isArray()) {
        c = c.getComponentType();
      }
      if (!c.isPrimitive() && c != Object.class && !c.getPackageName().isEmpty()) {
        out.add(c.getPackageName() + ".*");
      } else if (!c.isPrimitive() && c != Object.class) {
        out.add(c.getName());
      }
    } else if (type instanceof ParameterizedType p) {
      collectPackages(p.getRawType(), out, depth + 1);
      for (Type a : p.getActualTypeArguments()) {
        collectPackages(a, out, depth + 1);
      }
    } else if (type instanceof GenericArrayType g) {
      collectPackages(g.getGenericComponentType(), out, depth + 1);
    } else if (type instanceof WildcardType w) {
      for (Type b : w.getUpperBounds()) {
        collectPackages(b, out, depth + 1);
      }
    } else if (type instanceof TypeVariable<?> v) {
      for (Type b : v.getBounds()) {
        collectPackages(b, out, depth + 1);
      }
    }
  }
}
