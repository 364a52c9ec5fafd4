package dev.idempotent.internal.fingerprint;

import static dev.idempotent.internal.fingerprint.DigestWriter.tag;

import java.net.InetAddress;
import java.net.URL;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.nio.charset.Charset;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TimeZone;
import java.util.regex.Pattern;

/**
 * One walk over a value graph, writing each value in the encoding its {@link Form} names. A scalar
 * is written into its parent's digest as a tag and its content. A composite (array, collection,
 * map, entry, record, object) is digested once per walk, at the next level, and contributes its own
 * SHA-256 digest to its parent ({@code h} and the digest), so shared and repeated references cost
 * nothing more and a shared object digests like an equal copy; a reference back to an object being
 * digested (a cycle) is written as its distance up the path ({@code c} and the distance). Unordered
 * composites (sets, bags, maps) write their elements' (or entries') digests sorted.
 *
 * <p>Tags: {@code n} null, {@code s} text, {@code v} a boxed integral value (its simple type name
 * and decimal text), {@code f} a floating-point value, {@code d} a decimal, {@code e} an enum
 * (declaring class and name), {@code b} bytes, {@code o} an optional, {@code t} a typed text (label
 * and canonical text), {@code r} a record or object (class name, then each member's name and value;
 * alone for a stateless class), {@code a} an array, {@code l} a list, {@code S} a set, {@code u} a
 * bag, {@code m} a map, {@code k} a map entry.
 */
final class ValueWalker {
  /** The length-prefixed UTF-8 of "Long" and "Integer", as {@code text} writes them. */
  private static final byte[] LONG_LABEL = {0, 0, 0, 4, 'L', 'o', 'n', 'g'};

  private static final byte[] INTEGER_LABEL = {0, 0, 0, 7, 'I', 'n', 't', 'e', 'g', 'e', 'r'};

  /**
   * The content digests of empty composites: a tag and a zero length, as {@code content} writes.
   */
  private static final byte[] EMPTY_ARRAY = emptyContent('a');

  private static final byte[] EMPTY_LIST = emptyContent('l');
  private static final byte[] EMPTY_SET = emptyContent('S');
  private static final byte[] EMPTY_BAG = emptyContent('u');
  private static final byte[] EMPTY_MAP = emptyContent('m');

  private final DigestWriter out = new DigestWriter();

  /**
   * The root composite, digested inline at level 0; kept out of {@link #seen} so most calls need no
   * map.
   */
  private Object root;

  /** For nested composites: an Integer level while being digested, then its digest (byte[]). */
  private IdentityHashMap<Object, Object> seen;

  /** The SHA-256 digest of {@code v}'s content. */
  byte[] digest(Object v) {
    writeRoot(v);
    return out.level(0).digest();
  }

  private static byte[] emptyContent(char tag) {
    return DigestWriter.sha256().digest(new byte[] {(byte) tag, 0, 0, 0, 0});
  }

  private void writeRoot(Object v) {
    if (v == null) {
      write(null, 0);
      return;
    }
    Form form = TypeForms.of(v.getClass());
    if (form.isComposite()) {
      out.count();
      root = v;
      content(v, form, 0);
    } else {
      write(v, 0);
    }
  }

  private IdentityHashMap<Object, Object> memo() {
    if (seen == null) {
      seen = new IdentityHashMap<>();
    }
    return seen;
  }

  /** Writes {@code v} into the digest of level {@code level}. */
  private void write(Object v, int level) {
    MessageDigest md = out.level(level);
    if (v == null) {
      tag(md, 'n');
      return;
    }
    out.count();
    if (v instanceof String s) {
      out.tagAndText(md, 's', s);
      return;
    }
    if (v instanceof Long || v instanceof Integer) {
      tag(md, 'v');
      md.update(v instanceof Long ? LONG_LABEL : INTEGER_LABEL);
      out.text(md, v.toString());
      return;
    }
    Form form = TypeForms.of(v.getClass());
    switch (form.kind) {
      case BOXED -> {
        out.tagAndText(md, 'v', form.label);
        out.text(md, v.toString());
      }
      case FLOATING -> {
        out.tagAndText(md, 'f', form.label);
        out.text(md, v.toString());
      }
      case DECIMAL -> {
        out.tagAndText(md, 'd', v.toString());
      }
      case ENUM -> {
        Enum<?> e = (Enum<?>) v;
        out.tagAndText(md, 'e', e.getDeclaringClass().getName());
        out.text(md, e.name());
      }
      case BYTES -> {
        byte[] b = (byte[]) v;
        out.countBytes(b.length);
        out.tagAndLen(md, 'b', b.length);
        md.update(b);
      }
      case BYTE_BUFFER -> {
        ByteBuffer remaining = ((ByteBuffer) v).duplicate();
        out.countBytes(remaining.remaining());
        out.tagAndLen(md, 'b', remaining.remaining());
        md.update(remaining);
      }
      case ELEMENT_BUFFER -> writeElementBuffer((Buffer) v, md, level);
      case CHARS -> {
        out.tagAndText(md, 's', v.toString());
      }
      case OPTIONAL -> {
        tag(md, 'o');
        try {
          write(((Optional<?>) v).orElse(null), level);
        } catch (Refusal r) {
          throw r.at(".get()");
        }
      }
      case OPTIONAL_PRIMITIVE -> {
        tag(md, 'o');
        write(primitiveOptional(v), level);
      }
      case TEXT -> {
        out.tagAndText(md, 't', form.label);
        out.text(md, canonicalText(v));
      }
      case DATE -> {
        out.tagAndText(md, 't', form.label);
        out.text(md, Instant.ofEpochMilli(((java.util.Date) v).getTime()).toString());
      }
      case TIMESTAMP -> {
        out.tagAndText(md, 't', form.label);
        out.text(md, ((java.sql.Timestamp) v).toInstant().toString());
      }
      case CALENDAR -> {
        Calendar c = (Calendar) v;
        out.tagAndText(md, 't', form.label);
        out.text(md, c.getTimeZone().getID() + "@" + Instant.ofEpochMilli(c.getTimeInMillis()));
      }
      case TYPE -> {
        Class<?> type = (Class<?>) v;
        String refusal = UndigestableTypes.refusalOf(type);
        if (refusal != null) {
          throw new Refusal("the class " + type.getName() + " " + refusal);
        }
        out.tagAndText(md, 't', "java.lang.Class");
        out.text(md, type.getName());
      }
      case STATELESS -> {
        out.tagAndText(md, 'r', form.label);
      }
      case REFUSED -> throw new Refusal(form.refusal);
      default -> composite(v, form, md, level);
    }
  }

  /** A composite: digested once per walk at the next level, then referenced by its digest. */
  private void composite(Object v, Form form, MessageDigest md, int level) {
    if (v == root) {
      out.tagAndLen(md, 'c', level);
      return;
    }
    byte[] empty = emptyDigest(v, form);
    if (empty != null) {
      tag(md, 'h');
      md.update(empty);
      return;
    }
    IdentityHashMap<Object, Object> memo = memo();
    Object known = memo.get(v);
    if (known instanceof byte[] d) {
      tag(md, 'h');
      md.update(d);
      return;
    }
    if (known instanceof Integer onPath) {
      out.tagAndLen(md, 'c', level - onPath);
      return;
    }
    int inner = level + 1;
    if (inner > ValueDigest.MAX_DEPTH) {
      throw new Refusal("the value is nested more than " + ValueDigest.MAX_DEPTH + " levels deep");
    }
    memo.put(v, inner);
    content(v, form, inner);
    byte[] d = out.level(inner).digest();
    memo.put(v, d);
    tag(md, 'h');
    md.update(d);
  }

  /**
   * The digest an empty array, collection or map would have from {@link #content}, computed once:
   * it depends only on the kind. {@code null} when {@code v} is not empty or not of such a kind.
   */
  private static byte[] emptyDigest(Object v, Form form) {
    return switch (form.kind) {
      case ARRAY -> java.lang.reflect.Array.getLength(v) == 0 ? EMPTY_ARRAY : null;
      case LIST -> ((Collection<?>) v).isEmpty() ? EMPTY_LIST : null;
      case SET -> ((Collection<?>) v).isEmpty() ? EMPTY_SET : null;
      case BAG -> ((Collection<?>) v).isEmpty() ? EMPTY_BAG : null;
      case MAP -> ((Map<?, ?>) v).isEmpty() ? EMPTY_MAP : null;
      default -> null;
    };
  }

  /** Writes a composite's own content into the digest of {@code level}. */
  private void content(Object v, Form form, int level) {
    MessageDigest md = out.level(level);
    switch (form.kind) {
      case ARRAY -> {
        int n = java.lang.reflect.Array.getLength(v);
        out.tagAndLen(md, 'a', n);
        if (v instanceof Object[] array) {
          for (int i = 0; i < n; i++) {
            try {
              write(array[i], level);
            } catch (Refusal r) {
              throw r.at(i);
            }
          }
        } else {
          for (int i = 0; i < n; i++) {
            write(java.lang.reflect.Array.get(v, i), level);
          }
        }
      }
      case LIST -> {
        Collection<?> c = (Collection<?>) v;
        out.tagAndLen(md, 'l', c.size());
        int i = 0;
        for (Object o : c) {
          try {
            write(o, level);
          } catch (Refusal r) {
            throw r.at(i);
          }
          i++;
        }
      }
      case SET -> {
        tag(md, 'S');
        writeSorted((Collection<?>) v, level);
      }
      case BAG -> {
        tag(md, 'u');
        writeSorted((Collection<?>) v, level);
      }
      case MAP -> {
        Map<?, ?> map = (Map<?, ?>) v;
        tag(md, 'm');
        List<byte[]> entries = new ArrayList<>(map.size());
        MessageDigest sub = out.level(level + 1);
        for (Map.Entry<?, ?> e : map.entrySet()) {
          try {
            write(e.getKey(), level + 1);
            write(e.getValue(), level + 1);
          } catch (Refusal r) {
            throw r.at("[" + describeKey(e.getKey()) + "]");
          }
          entries.add(sub.digest());
        }
        entries.sort(Arrays::compare);
        out.len(md, entries.size());
        entries.forEach(md::update);
      }
      case ENTRY -> {
        Map.Entry<?, ?> e = (Map.Entry<?, ?>) v;
        tag(md, 'k');
        try {
          write(e.getKey(), level);
        } catch (Refusal r) {
          throw r.at(".key");
        }
        try {
          write(e.getValue(), level);
        } catch (Refusal r) {
          throw r.at(".value");
        }
      }
      case OBJECT -> {
        out.tagAndText(md, 'r', form.label);
        for (Form.Member m : form.members) {
          out.text(md, m.label);
          Object value = m.read(v);
          try {
            write(value, level);
          } catch (Refusal r) {
            throw r.at("." + m.label);
          }
        }
      }
      default -> throw new IllegalStateException(form.kind.toString());
    }
  }

  private void writeSorted(Collection<?> items, int level) {
    List<byte[]> digests = new ArrayList<>(items.size());
    MessageDigest sub = out.level(level + 1);
    for (Object o : items) {
      try {
        write(o, level + 1);
      } catch (Refusal r) {
        throw r.at("[element]");
      }
      digests.add(sub.digest());
    }
    digests.sort(Arrays::compare);
    out.len(out.level(level), digests.size());
    digests.forEach(out.level(level)::update);
  }

  private void writeElementBuffer(Buffer buffer, MessageDigest md, int level) {
    int from = buffer.position();
    int to = buffer.limit();
    out.tagAndLen(md, 'a', to - from);
    for (int i = from; i < to; i++) {
      Object element;
      if (buffer instanceof CharBuffer b) {
        element = b.get(i);
      } else if (buffer instanceof ShortBuffer b) {
        element = b.get(i);
      } else if (buffer instanceof IntBuffer b) {
        element = b.get(i);
      } else if (buffer instanceof LongBuffer b) {
        element = b.get(i);
      } else if (buffer instanceof FloatBuffer b) {
        element = b.get(i);
      } else {
        element = ((DoubleBuffer) buffer).get(i);
      }
      write(element, level);
    }
  }

  private static Object primitiveOptional(Object v) {
    if (v instanceof OptionalInt o) {
      return o.isPresent() ? (Object) o.getAsInt() : null;
    }
    if (v instanceof OptionalLong o) {
      return o.isPresent() ? (Object) o.getAsLong() : null;
    }
    OptionalDouble o = (OptionalDouble) v;
    return o.isPresent() ? (Object) o.getAsDouble() : null;
  }

  private static String canonicalText(Object v) {
    if (v instanceof Locale l) {
      return l.toLanguageTag();
    }
    if (v instanceof ZoneId z) {
      return z.getId();
    }
    if (v instanceof TimeZone z) {
      return z.getID();
    }
    if (v instanceof Charset c) {
      return c.name();
    }
    if (v instanceof Pattern p) {
      return p.flags() + "/" + p.pattern();
    }
    if (v instanceof InetAddress a) {
      return a.getHostAddress();
    }
    if (v instanceof URL u) {
      return u.toExternalForm();
    }
    return v.toString();
  }

  /**
   * A map key in a path: an enum constant by name; any other key is argument data and never shown.
   */
  private static String describeKey(Object key) {
    return key instanceof Enum<?> e ? e.name() : "entry";
  }
}
