package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import dev.idempotent.internal.codec.RecordedBytes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The bytes of a recorded outcome: one kind byte, then the value through the {@link ResultCodec},
 * nothing for {@code null}/{@code void}, the bytes themselves for a result declared as {@code
 * byte[]} (already opaque bytes, such as the web filter's recorded responses: no codec needed,
 * nothing to check), or a recorded failure as its class name and message (rethrown with the same
 * type and message on every repeat).
 *
 * <p>Recorded bytes are untrusted input: a value is returned only when it is an instance of the
 * method's declared result type, and a failure is rebuilt only when its class is one of the
 * method's {@code recordFailures}; anything else is an {@link UnreadableOutcomeException}. Encoding
 * shows, once per runtime class, that what it writes reads back, so an outcome that could not be
 * replayed is not recorded.
 *
 * <p>The kind byte is also the format's version. Version 2 writes {@code C} (a value: one byte
 * {@code n}, then the {@code n} ASCII characters of the {@link ResultCodec#format() format name} of
 * the codec that wrote it, then the codec's bytes), {@code N} ({@code null}), {@code B} (opaque
 * bytes), {@code F} (a recorded failure), {@code A} (an ambiguous failure: the class name of the
 * exception, nothing else) and {@code K} (a key blocked after an ambiguous failure: the class
 * name). Version 1 wrote a value as {@code V} and the codec's bytes, without the codec's name; such
 * a record is refused, saying so. A value is handed to the codec only when it {@link
 * ResultCodec#reads(String) reads} the recorded format name (the Jackson 2 and Jackson 3 codecs
 * read each other's), so a record written by another codec is refused naming both, not decoded as
 * garbage. A later format that changes a kind uses other bytes, and a reader refuses a kind it does
 * not know.
 */
public final class OutcomeCodec {
  static final byte VALUE = 'C';

  /** The value kind of format version 1, which named no codec: refused. */
  static final byte VERSION_1_VALUE = 'V';

  static final byte NULL = 'N';
  static final byte FAILURE = 'F';
  static final byte BYTES = 'B';
  static final byte AMBIGUOUS = 'A';
  static final byte BLOCKED = 'K';

  private static final byte[] NULL_OUTCOME = {NULL};
  private static final Map<Class<?>, Class<?>> WRAPPERS =
      Map.of(
          boolean.class,
          Boolean.class,
          byte.class,
          Byte.class,
          char.class,
          Character.class,
          short.class,
          Short.class,
          int.class,
          Integer.class,
          long.class,
          Long.class,
          float.class,
          Float.class,
          double.class,
          Double.class);

  private static final ClassValue<Constructor<?>[]> FAILURE_CONSTRUCTORS =
      new ClassValue<>() {
        @Override
        protected Constructor<?>[] computeValue(Class<?> type) {
          Constructor<?> withMessage = null;
          Constructor<?> noArgs = null;
          try {
            withMessage = type.getConstructor(String.class);
          } catch (NoSuchMethodException e) {
            // try the next form
          }
          try {
            noArgs = type.getConstructor();
          } catch (NoSuchMethodException e) {
            // none
          }
          if (withMessage != null) {
            withMessage.trySetAccessible();
          }
          if (noArgs != null) {
            noArgs.trySetAccessible();
          }
          return new Constructor<?>[] {withMessage, noArgs};
        }
      };

  private final ResultCodec codec;

  /** {@link #VALUE}, then the codec's format name, as every value this codec records starts. */
  private final byte[] valueHeader;

  /** Per declared type, the runtime classes whose results were shown to read back. */
  private final ConcurrentHashMap<Type, Set<Class<?>>> readableValues = new ConcurrentHashMap<>();

  /** The failure classes shown to be rebuilt from their records. */
  private final Set<Class<?>> readableFailures = ConcurrentHashMap.newKeySet();

  public OutcomeCodec(ResultCodec codec) {
    this.codec = codec;
    this.valueHeader = valueHeader(codec);
  }

  /**
   * {@link #VALUE} and the codec's format name; a configuration error when the name is not valid.
   */
  static byte[] valueHeader(ResultCodec codec) {
    String format = codec.format();
    boolean valid = format != null && !format.isEmpty() && format.length() <= 255;
    for (int i = 0; valid && i < format.length(); i++) {
      char c = format.charAt(i);
      valid = c > 0x20 && c < 0x7F;
    }
    if (!valid) {
      throw new IdempotencyConfigurationException(
          "the codec "
              + codec.getClass().getName()
              + " names its format '"
              + format
              + "': a format name is 1 to 255 printable ASCII characters without spaces, stored"
              + " with every recorded value");
    }
    byte[] header = new byte[format.length() + 2];
    header[0] = VALUE;
    header[1] = (byte) format.length();
    for (int i = 0; i < format.length(); i++) {
      header[i + 2] = (byte) format.charAt(i);
    }
    return header;
  }

  /**
   * Recorded bytes that cannot be read back: the codec refused them (a class, a limit, a value of
   * the wrong type, a failure type the method does not record) or they are corrupt. The message
   * says what was refused.
   */
  public static final class UnreadableOutcomeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableOutcomeException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Encodes a returned value ({@code null} allowed), after showing, once per runtime class and
   * declared type, that the bytes read back as an instance of both; throws {@link
   * IdempotencyConfigurationException} naming the type and the fix when the value cannot be
   * recorded.
   */
  public byte[] encodeValue(Object value, Type type) {
    if (value == null) {
      return NULL_OUTCOME;
    }
    if (type == byte[].class && value instanceof byte[] raw) {
      byte[] bytes = new byte[raw.length + 1];
      bytes[0] = BYTES;
      System.arraycopy(raw, 0, bytes, 1, raw.length);
      return bytes;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    out.write(valueHeader, 0, valueHeader.length);
    try {
      codec.encode(value, type, out);
    } catch (IOException e) {
      throw new IdempotencyConfigurationException(
          "cannot record a result of type "
              + value.getClass().getName()
              + " with "
              + codec.getClass().getSimpleName()
              + ": "
              + e.getMessage(),
          e);
    }
    byte[] bytes = out.toByteArray();
    Set<Class<?>> readable = readableValues.get(type);
    if (readable == null || !readable.contains(value.getClass())) {
      proveReadable(value, type, bytes);
    }
    return bytes;
  }

  private void proveReadable(Object value, Type type, byte[] bytes) {
    Class<?> runtime = value.getClass();
    Object back;
    try {
      back = decodeValue(bytes, type);
    } catch (UnreadableOutcomeException e) {
      throw new IdempotencyConfigurationException(
          "a result of type "
              + runtime.getName()
              + " cannot be recorded: "
              + codec.getClass().getSimpleName()
              + " would not read it back ("
              + e.getMessage()
              + ")",
          e);
    }
    // JDK collections may come back as another implementation of the same interface; other classes
    // must not
    if (back != null && !runtime.getName().startsWith("java.") && !runtime.isInstance(back)) {
      throw new IdempotencyConfigurationException(
          "a result of type "
              + runtime.getName()
              + " cannot be recorded: "
              + codec.getClass().getSimpleName()
              + " reads it back as a "
              + back.getClass().getName()
              + " (the declared"
              + " result type is "
              + type.getTypeName()
              + "); declare the result type the method really returns");
    }
    readableValues.computeIfAbsent(type, t -> ConcurrentHashMap.newKeySet()).add(runtime);
  }

  /** Encodes a failure the call records: its class name and message. */
  public byte[] encodeFailure(Throwable failure) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(FAILURE);
      out.writeUTF(failure.getClass().getName());
      String message = failure.getMessage();
      out.writeBoolean(message != null);
      if (message != null) {
        out.writeUTF(message.length() > 16_000 ? message.substring(0, 16_000) : message);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Encodes a failure the call records, after showing, once per failure class, that {@link
   * #decodeFailure(byte[], ClassLoader, Class[])} rebuilds it as the same class; throws {@link
   * IdempotencyConfigurationException} naming the class and the fix when it cannot.
   */
  public byte[] encodeFailure(
      Throwable failure, ClassLoader loader, Class<? extends Throwable>[] recordFailures) {
    byte[] bytes = encodeFailure(failure);
    Class<?> type = failure.getClass();
    if (!readableFailures.contains(type)) {
      Throwable back;
      try {
        back = decodeFailure(bytes, loader, recordFailures);
      } catch (UnreadableOutcomeException e) {
        throw new IdempotencyConfigurationException(
            "the failure " + type.getName() + " cannot be recorded: " + e.getMessage(), e);
      }
      if (back.getClass() != type) {
        throw new IdempotencyConfigurationException(
            "the failure "
                + type.getName()
                + " cannot be recorded: the"
                + " method's class loader finds another class of that name");
      }
      readableFailures.add(type);
    }
    return bytes;
  }

  /**
   * Encodes an ambiguous failure ({@code blocked}: one that blocks the key): its class name only,
   * since its message may carry data.
   */
  public static byte[] encodeAmbiguous(Throwable failure, boolean blocked) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(blocked ? BLOCKED : AMBIGUOUS);
      out.writeUTF(failure.getClass().getName());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** True when the outcome is an ambiguous failure, blocking or not. */
  public static boolean isAmbiguous(byte[] outcome) {
    return outcome != null
        && outcome.length > 0
        && (outcome[0] == AMBIGUOUS || outcome[0] == BLOCKED);
  }

  /** True when the outcome blocks its key. */
  public static boolean isBlocked(byte[] outcome) {
    return outcome != null && outcome.length > 0 && outcome[0] == BLOCKED;
  }

  /** The class name an ambiguous outcome holds. */
  public static String ambiguousFailureType(byte[] outcome) {
    try {
      DataInputStream in =
          new DataInputStream(new ByteArrayInputStream(outcome, 1, outcome.length - 1));
      return in.readUTF();
    } catch (IOException e) {
      throw new UnreadableOutcomeException(
          "the recorded ambiguous outcome is truncated or corrupt", e);
    }
  }

  /** True when the outcome is a recorded failure. */
  public static boolean isFailure(byte[] outcome) {
    return outcome != null && outcome.length > 0 && outcome[0] == FAILURE;
  }

  /**
   * The recorded value ({@code null} for a null or void result), which is an instance of the
   * declared {@code type} (of its erasure; a primitive type by its wrapper); else {@link
   * UnreadableOutcomeException}.
   */
  public Object decodeValue(byte[] outcome, Type type) {
    if (outcome == null || outcome.length == 0) {
      throw new UnreadableOutcomeException(
          "the record has no outcome bytes, so it was not written by this library", null);
    }
    Class<?> declared = erasure(type);
    if (outcome[0] == NULL) {
      if (declared.isPrimitive() && declared != void.class) {
        throw new UnreadableOutcomeException(
            "the record holds null, but the method returns " + declared, null);
      }
      return null;
    }
    if (outcome[0] == BYTES) {
      if (!declared.isAssignableFrom(byte[].class)) {
        throw new UnreadableOutcomeException(
            "the recorded result is a byte[], but the method returns " + type.getTypeName(), null);
      }
      return Arrays.copyOfRange(outcome, 1, outcome.length);
    }
    if (outcome[0] == VERSION_1_VALUE) {
      throw new UnreadableOutcomeException(
          "the recorded value is in outcome format 1, which did not name the codec that wrote it;"
              + " this version reads format 2: delete the record (or let it expire) and call again",
          null);
    }
    if (outcome[0] != VALUE) {
      throw new UnreadableOutcomeException(
          "the record's outcome is of unknown kind "
              + outcome[0]
              + ", so it was not written by this library",
          null);
    }
    int start = valueStart(outcome);
    Object value;
    try {
      value = codec.decode(new RecordedBytes(outcome, start), type);
    } catch (IOException | RuntimeException e) {
      throw new UnreadableOutcomeException(
          "cannot read the recorded result back: " + e.getMessage(), e);
    }
    if (value != null && !isInstance(declared, value)) {
      throw new UnreadableOutcomeException(
          "the recorded result is a "
              + value.getClass().getName()
              + ", but the method returns "
              + type.getTypeName(),
          null);
    }
    return value;
  }

  /**
   * Where the codec's bytes of a recorded value start: after this codec's own header, or after the
   * format name of another codec that this one {@link ResultCodec#reads(String) reads}; else {@link
   * UnreadableOutcomeException} naming both formats.
   */
  private int valueStart(byte[] outcome) {
    if (outcome.length >= valueHeader.length
        && Arrays.equals(outcome, 0, valueHeader.length, valueHeader, 0, valueHeader.length)) {
      return valueHeader.length;
    }
    int n = outcome.length > 1 ? outcome[1] & 0xFF : 0;
    if (n == 0 || outcome.length < n + 2) {
      throw new UnreadableOutcomeException(
          "the recorded value is truncated: it does not name the codec that wrote it", null);
    }
    String format = new String(outcome, 2, n, StandardCharsets.US_ASCII);
    if (!codec.reads(format)) {
      throw new UnreadableOutcomeException(
          "the recorded value was written by the codec of format '"
              + format
              + "', which this application's codec ("
              + codec.getClass().getSimpleName()
              + ", format '"
              + codec.format()
              + "') does not read: the codec was changed while records of the old one were"
              + " kept; configure the codec that wrote them, or delete them (or let them expire)",
          null);
    }
    return n + 2;
  }

  /**
   * A new instance of the recorded failure, with the same type and message; only when its class is
   * one of {@code recordFailures} or a subclass of one, else {@link UnreadableOutcomeException}.
   */
  public Throwable decodeFailure(
      byte[] outcome, ClassLoader loader, Class<? extends Throwable>[] recordFailures) {
    String className = null;
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(outcome, 1, outcome.length - 1))) {
      className = in.readUTF();
      String message = in.readBoolean() ? in.readUTF() : null;
      Class<?> type = recordedFailureClass(className, loader, recordFailures);
      Constructor<?>[] ctors = FAILURE_CONSTRUCTORS.get(type);
      if (ctors[0] != null) {
        return (Throwable) ctors[0].newInstance(message);
      }
      if (ctors[1] != null) {
        return (Throwable) ctors[1].newInstance();
      }
      throw new UnreadableOutcomeException(
          "the recorded failure "
              + className
              + " has neither a public (String) nor a public no-argument constructor, so it cannot"
              + " be rethrown; give it one, or do not list it in recordFailures",
          null);
    } catch (IOException e) {
      throw new UnreadableOutcomeException("the recorded failure is corrupt: " + e, e);
    } catch (ReflectiveOperationException | RuntimeException e) {
      if (e instanceof UnreadableOutcomeException u) {
        throw u;
      }
      Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
      throw new UnreadableOutcomeException(
          "cannot rebuild the recorded failure " + className + ": " + cause, e);
    }
  }

  private static Class<?> recordedFailureClass(
      String className, ClassLoader loader, Class<? extends Throwable>[] recordFailures) {
    for (Class<? extends Throwable> listed : recordFailures) {
      if (listed.getName().equals(className)) {
        return listed;
      }
    }
    String listed =
        recordFailures.length == 0
            ? "none"
            : Arrays.stream(recordFailures).map(Class::getName).collect(Collectors.joining(", "));
    if (recordFailures.length > 0) {
      Class<?> type;
      try {
        type = Class.forName(className, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new UnreadableOutcomeException(
            "the recorded failure " + className + " is not on the classpath", e);
      }
      for (Class<? extends Throwable> c : recordFailures) {
        if (c.isAssignableFrom(type)) {
          return type;
        }
      }
    }
    throw new UnreadableOutcomeException(
        "the recorded failure "
            + className
            + " is not one of the method's"
            + " recordFailures ("
            + listed
            + "), so it is not rebuilt",
        null);
  }

  private static boolean isInstance(Class<?> declared, Object value) {
    if (declared == Object.class) {
      return true;
    }
    if (declared.isPrimitive()) {
      return declared != void.class && WRAPPERS.get(declared) == value.getClass();
    }
    return declared != Void.class && declared.isInstance(value);
  }

  /** The class a value of {@code type} is an instance of. */
  static Class<?> erasure(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return erasure(p.getRawType());
    }
    if (type instanceof GenericArrayType g) {
      return Array.newInstance(erasure(g.getGenericComponentType()), 0).getClass();
    }
    if (type instanceof TypeVariable<?> v) {
      Type[] bounds = v.getBounds();
      return bounds.length == 0 ? Object.class : erasure(bounds[0]);
    }
    if (type instanceof WildcardType w) {
      Type[] bounds = w.getUpperBounds();
      return bounds.length == 0 ? Object.class : erasure(bounds[0]);
    }
    return Object.class;
  }
}
