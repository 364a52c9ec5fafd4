package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfigurationException;
import java.io.File;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.URI;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.BitSet;
import java.util.Calendar;
import java.util.Collection;
import java.util.Comparator;
import java.util.Currency;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Deterministic digests of argument values, by content only: the same values give the same
 * fingerprint on every JVM and host, in every time zone and locale, whatever the identity or
 * sharing of the objects.
 *
 * <ul>
 *   <li>Strings and other {@code CharSequence}s by their characters, numbers and booleans by value,
 *       enums by class and name, {@code byte[]} and {@code ByteBuffer} by their (remaining) bytes —
 *       a buffer's position is not moved —, other buffers by their remaining elements.
 *   <li>Dates and calendars by instant (never their zone-dependent text), {@code java.time} values,
 *       UUIDs, URIs, locales, currencies and the like by their ISO or canonical text.
 *   <li>Arrays, lists and deques in order; sets, maps and other unordered collections sorted by the
 *       digests of their elements and entries; {@code Optional} by its value.
 *   <li>Records by their components; other classes of the application by their declared fields (the
 *       class hierarchy, static and transient fields skipped), read by reflection: no method of the
 *       value is called.
 * </ul>
 *
 * <p>Each composite value (array, collection, map, record, object) is digested once per walk and
 * contributes its own SHA-256 digest to its parent, so shared and repeated references cost nothing
 * more and a shared object digests like an equal copy; a reference back to an object being digested
 * (a cycle) is written as its distance up the path. The walk is bounded ({@value #MAX_VALUES}
 * values, {@value #MAX_BYTES} bytes, {@value #MAX_DEPTH} levels).
 *
 * <p>A value with no content-based form — a lambda, a hidden, synthetic or generated proxy class, a
 * lock, thread, stream, reader, iterator, future, class loader, persistence-provider proxy, servlet
 * request, a JDK type not listed here, a class with no fields and no {@code toString} of its own, a
 * field the module system does not let us read — is refused with an {@link
 * UndigestableValueException} naming the path and the type. Nothing is ever digested by identity
 * hash code or by runtime class names that differ between JVMs.
 */
public final class Fingerprints {
  static final int MAX_DEPTH = 256;
  static final int MAX_VALUES = 1_000_000;
  static final long MAX_BYTES = 64L << 20;

  private static final String DEFAULT_ADVICE =
      "pass a value built from plain data (strings, numbers, records, collections) instead";

  private static final MessageDigest PROTOTYPE = newSha256();

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

  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  private static final ClassValue<Form> FORMS =
      new ClassValue<>() {
        @Override
        protected Form computeValue(Class<?> type) {
          return formOf(type);
        }
      };

  private Fingerprints() {}

  /**
   * The fingerprint of one value: 22 base64url characters (128 bits of SHA-256).
   *
   * @throws UndigestableValueException when the value (or a value inside it) has no content-based
   *     form or is too large to digest
   */
  public static String of(Object value) {
    return digest(value, "value", null);
  }

  /**
   * The fingerprint of a method's argument array, the same as {@link #of} of it; problems are
   * reported with the parameter names.
   */
  public static String ofArguments(Object[] arguments, String[] parameterNames) {
    return digest(arguments, "arguments", parameterNames);
  }

  private static String digest(Object value, String rootName, String[] parameterNames) {
    Walker walker = new Walker();
    try {
      walker.writeRoot(value);
    } catch (Refusal r) {
      String path = r.path(rootName, parameterNames);
      throw new UndigestableValueException(path, r.reason);
    }
    byte[] d = walker.level(0).digest();
    return BASE64URL.encodeToString(Arrays.copyOf(d, 16));
  }

  private static byte[] emptyContent(char tag) {
    return newSha256().digest(new byte[] {(byte) tag, 0, 0, 0, 0});
  }

  static MessageDigest sha256() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /**
   * A value, or a value inside it, that has no content-based digest, or an argument graph too large
   * to digest. {@link #problem()} says where and why, without the advice, for callers that add
   * their own.
   */
  public static final class UndigestableValueException extends IdempotencyConfigurationException {
    private static final long serialVersionUID = 1L;
    private final String problem;

    UndigestableValueException(String path, String reason) {
      super("cannot digest " + path + ": " + reason + "; " + DEFAULT_ADVICE);
      this.problem = "cannot digest " + path + ": " + reason;
    }

    /**
     * Where and why, for example "cannot digest order.lock:
     * java.util.concurrent.locks.ReentrantLock is a lock".
     */
    public String problem() {
      return problem;
    }
  }

  /** Thrown inside the walk; each composite level adds its step to the path on the way out. */
  private static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String reason;
    final Deque<Object> steps = new ArrayDeque<>();

    Refusal(String reason) {
      super(reason, null, false, false);
      this.reason = reason;
    }

    Refusal at(Object step) {
      steps.addFirst(step);
      return this;
    }

    String path(String rootName, String[] parameterNames) {
      StringBuilder out = new StringBuilder();
      boolean first = true;
      for (Object step : steps) {
        if (first && parameterNames != null && step instanceof Integer i) {
          out.append(
              i < parameterNames.length && parameterNames[i] != null
                  ? parameterNames[i]
                  : "#p" + i);
        } else {
          if (first) {
            out.append(rootName);
          }
          out.append(step instanceof Integer i ? "[" + i + "]" : step);
        }
        first = false;
      }
      return out.length() == 0 ? rootName : out.toString();
    }
  }

  private enum Kind {
    STRING,
    BOXED,
    FLOATING,
    DECIMAL,
    ENUM,
    BYTES,
    BYTE_BUFFER,
    ELEMENT_BUFFER,
    CHARS,
    OPTIONAL,
    OPTIONAL_PRIMITIVE,
    TEXT,
    DATE,
    TIMESTAMP,
    CALENDAR,
    TYPE,
    STATELESS,
    ARRAY,
    LIST,
    SET,
    BAG,
    MAP,
    ENTRY,
    OBJECT,
    REFUSED
  }

  /** How values of one runtime class are digested; computed once per class. */
  private static final class Form {
    final Kind kind;

    /** For labelled kinds: the stable public type name (or simple name for boxed numbers). */
    final String label;

    /** For {@link Kind#OBJECT}: the fields or record components, in a fixed order. */
    final Member[] members;

    /** For {@link Kind#REFUSED}: why. */
    final String refusal;

    Form(Kind kind, String label, Member[] members, String refusal) {
      this.kind = kind;
      this.label = label;
      this.members = members;
      this.refusal = refusal;
    }

    static Form of(Kind kind) {
      return new Form(kind, null, null, null);
    }

    static Form labelled(Kind kind, String label) {
      return new Form(kind, label, null, null);
    }

    static Form refused(String reason) {
      return new Form(Kind.REFUSED, null, null, reason);
    }

    boolean isComposite() {
      return kind == Kind.ARRAY
          || kind == Kind.LIST
          || kind == Kind.SET
          || kind == Kind.BAG
          || kind == Kind.MAP
          || kind == Kind.ENTRY
          || kind == Kind.OBJECT;
    }
  }

  /** One field or record component, read without calling the value's methods where possible. */
  private static final class Member {
    final String label;
    final Field field;
    final Method accessor;

    Member(String label, Field field, Method accessor) {
      this.label = label;
      this.field = field;
      this.accessor = accessor;
    }

    Object read(Object target) {
      try {
        return field != null ? field.get(target) : accessor.invoke(target);
      } catch (ReflectiveOperationException | RuntimeException e) {
        throw new Refusal("reading " + label + " failed (" + e + ")").at("." + label);
      }
    }
  }

  private static final class Walker {
    private MessageDigest[] levels = new MessageDigest[8];

    /**
     * The root composite, digested inline at level 0; kept out of {@link #seen} so most calls need
     * no map.
     */
    private Object root;

    /** For nested composites: an Integer level while being digested, then its digest (byte[]). */
    private IdentityHashMap<Object, Object> seen;

    private int values;
    private long bytes;

    /** Tags, lengths and short texts are gathered here and given to the digest in one update. */
    private final byte[] scratch = new byte[128];

    MessageDigest level(int n) {
      if (n >= levels.length) {
        levels = Arrays.copyOf(levels, Math.max(n + 1, levels.length * 2));
      }
      MessageDigest md = levels[n];
      if (md == null) {
        md = sha256();
        levels[n] = md;
      }
      return md;
    }

    void writeRoot(Object v) {
      if (v == null) {
        write(null, 0);
        return;
      }
      Form form = FORMS.get(v.getClass());
      if (form.isComposite()) {
        count();
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

    private void count() {
      if (++values > MAX_VALUES) {
        throw new Refusal(
            "the argument graph is too large to digest (more than " + MAX_VALUES + " values)");
      }
    }

    private void countBytes(long n) {
      bytes += n;
      if (bytes > MAX_BYTES) {
        throw new Refusal(
            "the argument graph is too large to digest (more than " + (MAX_BYTES >> 20) + " MiB)");
      }
    }

    private static void tag(MessageDigest md, char t) {
      md.update((byte) t);
    }

    /**
     * A tag and a length in one update: the digest sees the same bytes as from {@link #tag} and
     * {@link #len}, with one call through the digest's layers instead of five.
     */
    private void tagAndLen(MessageDigest md, char t, int n) {
      byte[] h = scratch;
      h[0] = (byte) t;
      putLen(h, 1, n);
      md.update(h, 0, 5);
    }

    /** A tag, then {@link #text}. */
    private void tagAndText(MessageDigest md, char t, String s) {
      textAfter(md, t, s);
    }

    private void text(MessageDigest md, String s) {
      textAfter(md, -1, s);
    }

    /** The tag (none when negative), the length of the UTF-8 text and the text. */
    private void textAfter(MessageDigest md, int tag, String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      countBytes(b.length);
      byte[] h = scratch;
      int at = 0;
      if (tag >= 0) {
        h[at++] = (byte) tag;
      }
      putLen(h, at, b.length);
      at += 4;
      if (b.length <= h.length - at) {
        System.arraycopy(b, 0, h, at, b.length);
        md.update(h, 0, at + b.length);
      } else {
        md.update(h, 0, at);
        md.update(b);
      }
    }

    private void len(MessageDigest md, int n) {
      putLen(scratch, 0, n);
      md.update(scratch, 0, 4);
    }

    private static void putLen(byte[] h, int at, int n) {
      h[at] = (byte) (n >>> 24);
      h[at + 1] = (byte) (n >>> 16);
      h[at + 2] = (byte) (n >>> 8);
      h[at + 3] = (byte) n;
    }

    /** Writes {@code v} into the digest of level {@code level}. */
    void write(Object v, int level) {
      MessageDigest md = level(level);
      if (v == null) {
        tag(md, 'n');
        return;
      }
      count();
      if (v instanceof String s) {
        tagAndText(md, 's', s);
        return;
      }
      if (v instanceof Long || v instanceof Integer) {
        tag(md, 'v');
        md.update(v instanceof Long ? LONG_LABEL : INTEGER_LABEL);
        text(md, v.toString());
        return;
      }
      Form form = FORMS.get(v.getClass());
      switch (form.kind) {
        case BOXED -> {
          tagAndText(md, 'v', form.label);
          text(md, v.toString());
        }
        case FLOATING -> {
          tagAndText(md, 'f', form.label);
          text(md, v.toString());
        }
        case DECIMAL -> {
          tagAndText(md, 'd', v.toString());
        }
        case ENUM -> {
          Enum<?> e = (Enum<?>) v;
          tagAndText(md, 'e', e.getDeclaringClass().getName());
          text(md, e.name());
        }
        case BYTES -> {
          byte[] b = (byte[]) v;
          countBytes(b.length);
          tagAndLen(md, 'b', b.length);
          md.update(b);
        }
        case BYTE_BUFFER -> {
          ByteBuffer remaining = ((ByteBuffer) v).duplicate();
          countBytes(remaining.remaining());
          tagAndLen(md, 'b', remaining.remaining());
          md.update(remaining);
        }
        case ELEMENT_BUFFER -> writeElementBuffer((Buffer) v, md, level);
        case CHARS -> {
          tagAndText(md, 's', v.toString());
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
          tagAndText(md, 't', form.label);
          text(md, canonicalText(v));
        }
        case DATE -> {
          tagAndText(md, 't', form.label);
          text(md, Instant.ofEpochMilli(((java.util.Date) v).getTime()).toString());
        }
        case TIMESTAMP -> {
          tagAndText(md, 't', form.label);
          text(md, ((java.sql.Timestamp) v).toInstant().toString());
        }
        case CALENDAR -> {
          Calendar c = (Calendar) v;
          tagAndText(md, 't', form.label);
          text(md, c.getTimeZone().getID() + "@" + Instant.ofEpochMilli(c.getTimeInMillis()));
        }
        case TYPE -> {
          Class<?> type = (Class<?>) v;
          String refusal = refusalOf(type);
          if (refusal != null) {
            throw new Refusal("the class " + type.getName() + " " + refusal);
          }
          tagAndText(md, 't', "java.lang.Class");
          text(md, type.getName());
        }
        case STATELESS -> {
          tagAndText(md, 'r', form.label);
        }
        case REFUSED -> throw new Refusal(form.refusal);
        default -> composite(v, form, md, level);
      }
    }

    /** A composite: digested once per walk at the next level, then referenced by its digest. */
    private void composite(Object v, Form form, MessageDigest md, int level) {
      if (v == root) {
        tagAndLen(md, 'c', level);
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
        tagAndLen(md, 'c', level - onPath);
        return;
      }
      int inner = level + 1;
      if (inner > MAX_DEPTH) {
        throw new Refusal("the value is nested more than " + MAX_DEPTH + " levels deep");
      }
      memo.put(v, inner);
      content(v, form, inner);
      byte[] d = level(inner).digest();
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
      MessageDigest md = level(level);
      switch (form.kind) {
        case ARRAY -> {
          int n = java.lang.reflect.Array.getLength(v);
          tagAndLen(md, 'a', n);
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
          tagAndLen(md, 'l', c.size());
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
          MessageDigest sub = level(level + 1);
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
          len(md, entries.size());
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
          tagAndText(md, 'r', form.label);
          for (Member m : form.members) {
            text(md, m.label);
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
      MessageDigest sub = level(level + 1);
      for (Object o : items) {
        try {
          write(o, level + 1);
        } catch (Refusal r) {
          throw r.at("[element]");
        }
        digests.add(sub.digest());
      }
      digests.sort(Arrays::compare);
      len(level(level), digests.size());
      digests.forEach(level(level)::update);
    }

    private void writeElementBuffer(Buffer buffer, MessageDigest md, int level) {
      int from = buffer.position();
      int to = buffer.limit();
      tagAndLen(md, 'a', to - from);
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

  // ---- classification, once per class ----

  private static Form formOf(Class<?> type) {
    if (type == String.class) {
      return Form.of(Kind.STRING);
    }
    if (type == Boolean.class
        || type == Character.class
        || type == Integer.class
        || type == Long.class
        || type == Short.class
        || type == Byte.class
        || type == BigInteger.class
        || type == AtomicInteger.class
        || type == AtomicLong.class
        || type == AtomicBoolean.class) {
      return Form.labelled(Kind.BOXED, type.getSimpleName());
    }
    if (type == Double.class || type == Float.class) {
      return Form.labelled(Kind.FLOATING, type.getSimpleName());
    }
    if (BigDecimal.class.isAssignableFrom(type)) {
      return Form.of(Kind.DECIMAL);
    }
    if (Enum.class.isAssignableFrom(type)) {
      return Form.of(Kind.ENUM);
    }
    if (type == byte[].class) {
      return Form.of(Kind.BYTES);
    }
    String refusal = refusalOf(type);
    if (refusal != null) {
      return Form.refused(type.getName() + " " + refusal);
    }
    if (type.isArray()) {
      return Form.of(Kind.ARRAY);
    }
    if (ByteBuffer.class.isAssignableFrom(type)) {
      return Form.of(Kind.BYTE_BUFFER);
    }
    if (CharSequence.class.isAssignableFrom(type)) {
      return Form.of(Kind.CHARS);
    }
    if (Buffer.class.isAssignableFrom(type)) {
      return Form.of(Kind.ELEMENT_BUFFER);
    }
    if (type == Optional.class) {
      return Form.of(Kind.OPTIONAL);
    }
    if (type == OptionalInt.class || type == OptionalLong.class || type == OptionalDouble.class) {
      return Form.of(Kind.OPTIONAL_PRIMITIVE);
    }
    if (Set.class.isAssignableFrom(type)) {
      return Form.of(Kind.SET);
    }
    if (Collection.class.isAssignableFrom(type)) {
      boolean unordered =
          PriorityQueue.class.isAssignableFrom(type)
              || PriorityBlockingQueue.class.isAssignableFrom(type)
              || !(List.class.isAssignableFrom(type) || Queue.class.isAssignableFrom(type));
      return Form.of(unordered ? Kind.BAG : Kind.LIST);
    }
    if (Map.class.isAssignableFrom(type)) {
      return Form.of(Kind.MAP);
    }
    if (Map.Entry.class.isAssignableFrom(type)) {
      return Form.of(Kind.ENTRY);
    }
    if (extendsClassNamed(type, "java.sql.Timestamp")) {
      // by name, so that a runtime without the java.sql module never loads it
      return Form.labelled(Kind.TIMESTAMP, "java.sql.Timestamp");
    }
    if (java.util.Date.class.isAssignableFrom(type)) {
      return Form.labelled(Kind.DATE, publicJdkName(type));
    }
    if (Calendar.class.isAssignableFrom(type)) {
      return Form.labelled(Kind.CALENDAR, "java.util.Calendar");
    }
    if (type == Class.class) {
      return Form.of(Kind.TYPE);
    }
    String text = textLabel(type);
    if (text != null) {
      return Form.labelled(Kind.TEXT, text);
    }
    if (type == Object.class) {
      return Form.refused(
          "java.lang.Object has no content: only its identity tells two instances apart");
    }
    if (isJdk(type)) {
      return Form.refused(
          type.getName() + " is a JDK type with no content-based form known to the digest");
    }
    if (type.isRecord()) {
      return recordForm(type);
    }
    return objectForm(type);
  }

  /** The stable label of a JDK value type digested by its canonical text, or null. */
  private static String textLabel(Class<?> type) {
    if (!isJdk(type) && !Path.class.isAssignableFrom(type)) {
      return null;
    }
    String pkg = type.getPackageName();
    if ((pkg.equals("java.time") || pkg.startsWith("java.time."))
        && !Clock.class.isAssignableFrom(type)) {
      return ZoneId.class.isAssignableFrom(type) && type != java.time.ZoneOffset.class
          ? "java.time.ZoneId"
          : publicJdkName(type);
    }
    if (Path.class.isAssignableFrom(type)) {
      return "java.nio.file.Path";
    }
    if (TimeZone.class.isAssignableFrom(type)) {
      return "java.util.TimeZone";
    }
    if (Charset.class.isAssignableFrom(type)) {
      return "java.nio.charset.Charset";
    }
    if (InetAddress.class.isAssignableFrom(type)) {
      return "java.net.InetAddress";
    }
    for (Class<?> c :
        new Class<?>[] {
          UUID.class,
          URI.class,
          URL.class,
          File.class,
          Locale.class,
          Currency.class,
          Pattern.class,
          BitSet.class
        }) {
      if (c == type) {
        return c.getName();
      }
    }
    return null;
  }

  private static final Class<?>[] DENIED = {
    java.util.concurrent.locks.Lock.class,
    java.util.concurrent.locks.ReadWriteLock.class,
    java.util.concurrent.locks.Condition.class,
    Thread.class,
    ThreadGroup.class,
    ClassLoader.class,
    java.io.InputStream.class,
    java.io.OutputStream.class,
    java.io.Reader.class,
    java.io.Writer.class,
    java.util.stream.BaseStream.class,
    java.util.Iterator.class,
    java.util.Spliterator.class,
    java.util.Enumeration.class,
    AutoCloseable.class,
    java.util.concurrent.Future.class,
    java.util.concurrent.CompletionStage.class,
    java.util.concurrent.Executor.class,
    java.util.concurrent.Semaphore.class,
    java.util.concurrent.CountDownLatch.class,
    java.util.concurrent.CyclicBarrier.class,
    java.util.concurrent.Phaser.class,
    java.util.Random.class,
    java.util.Timer.class,
    Process.class,
    ProcessHandle.class,
    Runtime.class,
    java.lang.ref.Reference.class,
    Throwable.class,
    Clock.class,
    MessageDigest.class
  };

  /**
   * Supertypes, by name, of values that must never be walked: requests, sessions, persistence
   * internals.
   */
  private static final Set<String> DENIED_NAMES =
      Set.of(
          "jakarta.servlet.ServletRequest",
          "javax.servlet.ServletRequest",
          "jakarta.servlet.ServletResponse",
          "javax.servlet.ServletResponse",
          "jakarta.servlet.http.HttpSession",
          "javax.servlet.http.HttpSession",
          "jakarta.persistence.EntityManager",
          "javax.persistence.EntityManager",
          "org.hibernate.proxy.HibernateProxy",
          "org.hibernate.collection.spi.PersistentCollection",
          "org.hibernate.engine.spi.PersistentAttributeInterceptable");

  /** Why values of this class cannot be digested by content, or null when they can. */
  private static String refusalOf(Class<?> type) {
    String name = type.getName();
    if (type.isHidden() || name.contains("$$Lambda")) {
      return "is a lambda or hidden class: it has no content to digest";
    }
    if (Proxy.isProxyClass(type)) {
      return "is a dynamic proxy (java.lang.reflect.Proxy): it has no content to digest";
    }
    if (type.isSynthetic()) {
      return "is a synthetic class: it has no content to digest";
    }
    if (name.contains("$$")
        || name.contains("$HibernateProxy$")
        || name.contains("$ByteBuddy$")
        || name.contains("_$$_")) {
      return "is a generated proxy or subclass (its name differs between runs): digest the entity's"
          + " own fields in a key expression";
    }
    if (name.startsWith("org.hibernate.")
        || name.startsWith("org.eclipse.persistence.")
        || name.startsWith("org.apache.openjpa.")) {
      return "belongs to a persistence provider (a lazy collection or proxy): reading it could load"
          + " from the database";
    }
    for (Class<?> denied : DENIED) {
      if (denied.isAssignableFrom(type)) {
        return "is a " + denied.getName() + ": it has no content that identifies a request";
      }
    }
    String deniedSupertype = deniedSupertype(type, new HashSet<>());
    if (deniedSupertype != null) {
      return "is a " + deniedSupertype + ": reading it could change it";
    }
    return null;
  }

  private static String deniedSupertype(Class<?> type, Set<Class<?>> visited) {
    if (type == null || !visited.add(type)) {
      return null;
    }
    if (DENIED_NAMES.contains(type.getName())) {
      return type.getName();
    }
    String found = deniedSupertype(type.getSuperclass(), visited);
    for (Class<?> i : type.getInterfaces()) {
      if (found == null) {
        found = deniedSupertype(i, visited);
      }
    }
    return found;
  }

  /** A class of the JDK itself: loaded by the boot or platform class loader. */
  static boolean isJdk(Class<?> type) {
    while (type.isArray()) {
      type = type.getComponentType();
    }
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }

  static boolean extendsClassNamed(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  private static String publicJdkName(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (isJdk(c)
          && Modifier.isPublic(c.getModifiers())
          && c.getModule().isExported(c.getPackageName())) {
        return c.getName();
      }
    }
    return type.getName();
  }

  private static Form recordForm(Class<?> type) {
    RecordComponent[] components = type.getRecordComponents();
    Member[] members = new Member[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent rc = components[i];
      Field field = declaredField(type, rc.getName());
      if (field != null && trySetAccessible(field)) {
        members[i] = new Member(rc.getName(), field, null);
      } else if (trySetAccessible(rc.getAccessor())) {
        members[i] = new Member(rc.getName(), null, rc.getAccessor());
      } else {
        return Form.refused(
            type.getName()
                + " is a record whose component "
                + rc.getName()
                + " cannot be read: "
                + openAdvice(type));
      }
    }
    return new Form(Kind.OBJECT, type.getName(), members, null);
  }

  private static Form objectForm(Class<?> type) {
    List<Field> fields = new ArrayList<>();
    for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
      if (isJdk(c) && hasInstanceFields(c)) {
        return Form.refused(
            type.getName()
                + " extends the JDK class "
                + c.getName()
                + ", whose fields cannot be read");
      }
      for (Field f : c.getDeclaredFields()) {
        int modifiers = f.getModifiers();
        if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers)) {
          continue;
        }
        if (!trySetAccessible(f)) {
          return Form.refused(
              type.getName()
                  + " has a field "
                  + c.getName()
                  + "."
                  + f.getName()
                  + " that cannot be read: "
                  + openAdvice(c));
        }
        fields.add(f);
      }
    }
    if (fields.isEmpty()) {
      if (toStringIsObjects(type)) {
        return Form.refused(
            type.getName()
                + " has no fields and no toString of its own: only its identity tells"
                + " two instances apart");
      }
      return Form.labelled(Kind.STATELESS, type.getName());
    }
    fields.sort(
        Comparator.comparing(Field::getName).thenComparing(f -> f.getDeclaringClass().getName()));
    Member[] members = new Member[fields.size()];
    for (int i = 0; i < members.length; i++) {
      Field f = fields.get(i);
      boolean shadowed =
          (i > 0 && fields.get(i - 1).getName().equals(f.getName()))
              || (i + 1 < members.length && fields.get(i + 1).getName().equals(f.getName()));
      members[i] =
          new Member(
              shadowed ? f.getDeclaringClass().getName() + "." + f.getName() : f.getName(),
              f,
              null);
    }
    return new Form(Kind.OBJECT, type.getName(), members, null);
  }

  private static boolean hasInstanceFields(Class<?> type) {
    for (Field f : type.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        return true;
      }
    }
    return false;
  }

  private static boolean toStringIsObjects(Class<?> type) {
    try {
      return type.getMethod("toString").getDeclaringClass() == Object.class;
    } catch (NoSuchMethodException e) {
      return true;
    }
  }

  private static String openAdvice(Class<?> type) {
    return "open package "
        + type.getPackageName()
        + " of "
        + type.getModule()
        + " to "
        + Fingerprints.class.getModule();
  }

  private static Field declaredField(Class<?> type, String name) {
    try {
      return type.getDeclaredField(name);
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  private static boolean trySetAccessible(AccessibleObject o) {
    try {
      return o.trySetAccessible();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
