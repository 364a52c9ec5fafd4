package dev.idempotent.internal.codec;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Java serialization behind an allow-list: only classes of {@code java.lang}, {@code java.util},
 * {@code java.time}, {@code java.math}, the packages of the declared result type (and its type arguments) and
 * the configured patterns may be read back. Anything else in stored bytes is refused before it is instantiated.
 */
public final class JavaSerializationCodec implements ResultCodec {
  private static final String BASE = "java.lang.*;java.util.*;java.time.*;java.math.*;java.net.URI;java.net.URL";
  private static final String LIMITS = "maxdepth=64;maxrefs=1000000;maxarray=67108864";

  private final String[] allowed;
  private final ConcurrentHashMap<Type, ObjectInputFilter> filters = new ConcurrentHashMap<>();

  public JavaSerializationCodec(String... allowedPatterns) {
    for (String p : allowedPatterns) {
      if (p == null || p.isBlank() || p.contains(";") || p.startsWith("!")) {
        throw new IllegalArgumentException("bad codec allow pattern '" + p
            + "': give one class or package pattern per entry, e.g. com.example.Order, com.example.*, com.example.**");
      }
    }
    this.allowed = allowedPatterns.clone();
  }

  @Override
  public void encode(Object value, Type type, OutputStream out) throws IOException {
    try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
      oos.writeObject(value);
    } catch (NotSerializableException e) {
      throw new IdempotencyConfigurationException("cannot record a result of type " + value.getClass().getName()
          + ": " + e.getMessage() + " is not Serializable; implement java.io.Serializable, or use the Jackson codec"
          + " (idempotent.codec=jackson, or IdempotencyConfig.builder().codec(ResultCodec.jackson()))", e);
    }
  }

  @Override
  public Object decode(InputStream in, Type type) throws IOException {
    try (ObjectInputStream ois = new ObjectInputStream(in)) {
      ois.setObjectInputFilter(filters.computeIfAbsent(type, this::filterFor));
      return ois.readObject();
    } catch (InvalidClassException e) {
      String reason = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
      throw new IdempotencyConfigurationException("a recorded result cannot be read back: " + reason
          + " of the Java serialization codec (declared result type " + type.getTypeName() + "); allow it with idempotent.codec.allow=<package>.* or "
          + "ResultCodec.javaSerialization(\"<package>.*\")", e);
    } catch (ClassNotFoundException e) {
      throw new IOException("recorded result needs class " + e.getMessage() + ", which is not on the classpath", e);
    }
  }

  @Override
  public void checkEncodable(Type type, String where) {
    Class<?> raw = raw(type);
    if (raw == null || raw.isPrimitive() || raw.isInterface() || raw == Object.class || raw.isArray()) {
      return;
    }
    if (!Serializable.class.isAssignableFrom(raw) && !Modifier.isAbstract(raw.getModifiers())) {
      throw new IdempotencyConfigurationException(where + " returns " + raw.getName()
          + ", which the Java serialization codec cannot record: implement java.io.Serializable, or use the Jackson"
          + " codec (idempotent.codec=jackson, or IdempotencyConfig.builder().codec(ResultCodec.jackson()))");
    }
  }

  private ObjectInputFilter filterFor(Type type) {
    Set<String> patterns = new LinkedHashSet<>();
    collectPackages(type, patterns, 0);
    StringBuilder sb = new StringBuilder(LIMITS).append(';').append(BASE);
    for (String p : patterns) {
      sb.append(';').append(p);
    }
    for (String p : allowed) {
      sb.append(';').append(p);
    }
    sb.append(";!*");
    ObjectInputFilter base = ObjectInputFilter.Config.createFilter(sb.toString());
    return info -> {
      ObjectInputFilter.Status status = base.checkInput(info);
      if (status == ObjectInputFilter.Status.REJECTED && info.serialClass() != null) {
        throw new IllegalStateException("class " + info.serialClass().getName() + " is not in the allow-list");
      }
      return status;
    };
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

  static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    return null;
  }
}
