package dev.idempotent.internal;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Deterministic digests of argument values: the same values give the same fingerprint on every JVM and
 * host. Values are walked structurally, never through identity hash codes or iteration order of hashed
 * collections: strings and numbers by value, enums by name, lists in order, sets and maps sorted by the
 * digests of their elements and keys, records by component, other objects by their getters and public
 * fields in name order (accessors cached per class). Cycles and depth over 32 are cut deterministically.
 */
public final class Fingerprints {
  private static final int MAX_DEPTH = 32;

  private static final ClassValue<Accessor[]> ACCESSORS = new ClassValue<>() {
    @Override
    protected Accessor[] computeValue(Class<?> type) {
      return accessorsOf(type);
    }
  };

  private Fingerprints() {}

  /** The fingerprint of one value: 22 base64url characters (128 bits of SHA-256). */
  public static String of(Object value) {
    MessageDigest md = sha256();
    new Walker(md).write(value, 0);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(md.digest(), 16));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static final class Walker {
    private final MessageDigest md;
    private final IdentityHashMap<Object, Boolean> path = new IdentityHashMap<>();

    Walker(MessageDigest md) {
      this.md = md;
    }

    void tag(char t) {
      md.update((byte) t);
    }

    void text(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      len(b.length);
      md.update(b);
    }

    void len(int n) {
      md.update((byte) (n >>> 24));
      md.update((byte) (n >>> 16));
      md.update((byte) (n >>> 8));
      md.update((byte) n);
    }

    void write(Object v, int depth) {
      if (v == null) {
        tag('n');
        return;
      }
      if (depth > MAX_DEPTH) {
        tag('D');
        return;
      }
      if (v instanceof String s) {
        tag('s');
        text(s);
      } else if (v instanceof Boolean || v instanceof Character || v instanceof Integer || v instanceof Long
          || v instanceof Short || v instanceof Byte || v instanceof BigInteger) {
        tag('v');
        text(v.getClass().getSimpleName());
        text(v.toString());
      } else if (v instanceof Double || v instanceof Float) {
        tag('f');
        text(v.getClass().getSimpleName());
        text(v.toString());
      } else if (v instanceof BigDecimal d) {
        tag('d');
        text(d.toString());
      } else if (v instanceof Enum<?> e) {
        tag('e');
        text(e.getDeclaringClass().getName());
        text(e.name());
      } else if (v instanceof byte[] b) {
        tag('b');
        len(b.length);
        md.update(b);
      } else if (v instanceof CharSequence cs) {
        tag('s');
        text(cs.toString());
      } else if (v instanceof Optional<?> o) {
        tag('o');
        write(o.orElse(null), depth + 1);
      } else if (!enter(v)) {
        tag('c');
      } else {
        try {
          writeComposite(v, depth);
        } finally {
          path.remove(v);
        }
      }
    }

    private boolean enter(Object v) {
      return path.put(v, Boolean.TRUE) == null;
    }

    private void writeComposite(Object v, int depth) {
      Class<?> type = v.getClass();
      if (type.isArray()) {
        int n = java.lang.reflect.Array.getLength(v);
        tag('a');
        len(n);
        for (int i = 0; i < n; i++) {
          write(java.lang.reflect.Array.get(v, i), depth + 1);
        }
      } else if (v instanceof Set<?> set) {
        tag('S');
        writeSorted(set, depth);
      } else if (v instanceof Collection<?> c) {
        tag('l');
        len(c.size());
        for (Object o : c) {
          write(o, depth + 1);
        }
      } else if (v instanceof Map<?, ?> map) {
        tag('m');
        List<byte[]> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
          MessageDigest sub = sha256();
          Walker w = new Walker(sub);
          w.path.putAll(path);
          w.write(e.getKey(), depth + 1);
          w.write(e.getValue(), depth + 1);
          entries.add(sub.digest());
        }
        entries.sort(Arrays::compare);
        len(entries.size());
        entries.forEach(md::update);
      } else if (type.getName().startsWith("java.") || type.getName().startsWith("javax.")) {
        // Temporal values, UUID, URI, File and the like: their text is their value.
        tag('t');
        text(type.getName());
        text(v.toString());
      } else {
        tag('r');
        text(type.getName());
        for (Accessor a : ACCESSORS.get(type)) {
          text(a.name);
          write(a.get(v), depth + 1);
        }
      }
    }

    private void writeSorted(Collection<?> items, int depth) {
      List<byte[]> digests = new ArrayList<>(items.size());
      for (Object o : items) {
        MessageDigest sub = sha256();
        Walker w = new Walker(sub);
        w.path.putAll(path);
        w.write(o, depth + 1);
        digests.add(sub.digest());
      }
      digests.sort(Arrays::compare);
      len(digests.size());
      digests.forEach(md::update);
    }
  }

  private record Accessor(String name, Method method, Field field) {
    Object get(Object target) {
      try {
        return method != null ? method.invoke(target) : field.get(target);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return "<unreadable:" + e.getClass().getSimpleName() + ">";
      }
    }
  }

  private static Accessor[] accessorsOf(Class<?> type) {
    List<Accessor> out = new ArrayList<>();
    if (type.isRecord()) {
      for (RecordComponent rc : type.getRecordComponents()) {
        Method m = rc.getAccessor();
        trySetAccessible(m);
        out.add(new Accessor(rc.getName(), m, null));
      }
      return out.toArray(new Accessor[0]);
    }
    for (Method m : type.getMethods()) {
      if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class) {
        continue;
      }
      String n = m.getName();
      String prop = null;
      if (n.startsWith("get") && n.length() > 3 && m.getReturnType() != void.class) {
        prop = Character.toLowerCase(n.charAt(3)) + n.substring(4);
      } else if (n.startsWith("is") && n.length() > 2 && m.getReturnType() == boolean.class) {
        prop = Character.toLowerCase(n.charAt(2)) + n.substring(3);
      }
      if (prop != null) {
        trySetAccessible(m);
        out.add(new Accessor(prop, m, null));
      }
    }
    for (Field f : type.getFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        out.add(new Accessor(f.getName(), null, f));
      }
    }
    if (out.isEmpty()) {
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isTransient(f.getModifiers()) && trySetAccessible(f)) {
            out.add(new Accessor(c.getName() + "." + f.getName(), null, f));
          }
        }
      }
    }
    out.sort(Comparator.comparing(Accessor::name));
    return out.toArray(new Accessor[0]);
  }

  private static boolean trySetAccessible(java.lang.reflect.AccessibleObject o) {
    try {
      return o.trySetAccessible();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
