package dev.idempotent.internal.codec;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamConstants;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Java serialization behind an allow-list: only classes of {@code java.lang}, {@code java.util},
 * {@code java.time}, {@code java.math}, {@code java.net.URI}, the packages of the declared result
 * type (and its type arguments) and the configured patterns may be read back, and never a class of
 * the {@link ClassAllowList}'s deny-list (classes whose deserialization or hashing does I/O or runs
 * code the bytes choose), whatever pattern admits it.
 *
 * <p>Stored bytes are untrusted input. Before {@link ObjectInputStream} sees them, {@link
 * SerializedStreamCheck} reads them without loading a class and refuses what they name outside the
 * allow-list, proxies, arrays longer than the bytes could fill, nesting deeper than {@value
 * SerializedStreamCheck#MAX_DEPTH}, more than {@value SerializedStreamCheck#MAX_HANDLES} objects,
 * and graphs whose hashing would be exponential. An {@link ObjectInputFilter} then checks the same
 * while the objects are created, including the tables that {@code readObject} methods allocate for
 * their size fields. Streams longer than {@link #MAX_BYTES} are refused. Encoding refuses a result
 * that holds a class the same allow-list would refuse, so such a result is never recorded.
 */
public final class JavaSerializationCodec implements ResultCodec {
  /** The longest recorded result it writes or reads: 16 MiB. */
  public static final int MAX_BYTES = 16 * 1024 * 1024;

  private final AllowListsByResultType allowLists;
  private final EncoderPool encoders = new EncoderPool();

  public JavaSerializationCodec(String... allowedPatterns) {
    this.allowLists =
        new AllowListsByResultType(
            allowedPatterns, "the Java serialization codec", "ResultCodec.javaSerialization");
  }

  /** The format name stored with its values. */
  public static final String FORMAT = "java";

  @Override
  public String format() {
    return FORMAT;
  }

  @Override
  public void encode(Object value, Type type, OutputStream out) throws IOException {
    Encoder encoder = encoders.take();
    boolean written = false;
    try {
      encoder.write(value, allowList(type), out);
      written = true;
    } catch (NotSerializableException e) {
      throw new IdempotencyConfigurationException(
          "cannot record a result of type "
              + value.getClass().getName()
              + ": "
              + e.getMessage()
              + " is not Serializable; implement java.io.Serializable, or use the Jackson codec"
              + " (idempotent.codec=jackson, or"
              + " IdempotencyConfig.builder().codec(ResultCodec.jackson()))",
          e);
    } finally {
      if (written) {
        encoders.release(encoder);
      }
    }
  }

  @Override
  public Object decode(InputStream in, Type type) throws IOException {
    byte[] bytes;
    int from;
    if (in instanceof RecordedBytes recorded && recorded.runsToEnd()) {
      // the library's own record: checked and read in place, without a copy
      bytes = recorded.array();
      from = recorded.from();
      if (bytes.length - from > MAX_BYTES) {
        throw tooLong();
      }
      recorded.skip(bytes.length - from);
    } else {
      bytes = readAtMostMaxBytes(in);
      from = 0;
    }
    int length = bytes.length - from;
    ClassAllowList allowList = allowList(type);
    SerializedStreamCheck.check(bytes, from, allowList);
    try (ObjectInputStream ois =
        new ObjectInputStream(new ByteArrayInputStream(bytes, from, length))) {
      ois.setObjectInputFilter(new ReadFilter(allowList, length));
      return ois.readObject();
    } catch (InvalidClassException e) {
      Throwable refusal = e.getCause() instanceof IllegalStateException ? e.getCause() : e;
      throw new InvalidClassException(refusal.getMessage());
    } catch (ClassNotFoundException e) {
      throw new InvalidClassException(
          "the recorded result needs class " + e.getMessage() + ", which is not on the classpath");
    } catch (StackOverflowError e) {
      throw new InvalidObjectException("the recorded result is nested too deeply to read back");
    }
  }

  /**
   * The whole stream, refused past {@link #MAX_BYTES}. A {@link ByteArrayInputStream} (what the
   * library hands over) is read into one array of its exact length; {@code
   * InputStream.readNBytes(int)} would first fill an 8 KiB buffer and copy it, several times the
   * size of a typical result, on every replay.
   */
  static byte[] readAtMostMaxBytes(InputStream in) throws IOException {
    if (in instanceof ByteArrayInputStream array) {
      int length = array.available();
      if (length > MAX_BYTES) {
        throw tooLong();
      }
      byte[] bytes = new byte[length];
      array.readNBytes(bytes, 0, length);
      return bytes;
    }
    byte[] bytes = in.readNBytes(MAX_BYTES + 1);
    if (bytes.length > MAX_BYTES) {
      throw tooLong();
    }
    return bytes;
  }

  private static InvalidObjectException tooLong() {
    return new InvalidObjectException("the recorded result is longer than " + MAX_BYTES + " bytes");
  }

  private ClassAllowList allowList(Type type) {
    return allowLists.of(type);
  }

  /**
   * One {@link ObjectOutputStream}, kept for many results: a new stream per result allocated about
   * 2 KiB (its block buffer and handle tables) and cost a sixth of a memory-store call. {@link
   * ObjectOutputStream#reset} between results makes the next result's bytes exactly what a new
   * stream writes after its header, which {@link #write} writes itself; the reset's own marker goes
   * nowhere. An encoder whose write failed is dropped, never reused, since its stream may be left
   * mid-object.
   */
  private static final class Encoder {
    private final Target target = new Target();
    private final CheckedOutput stream;

    Encoder() {
      try {
        stream = new CheckedOutput(target);
        stream.flush();
      } catch (IOException e) {
        throw new IllegalStateException("an ObjectOutputStream over no output failed", e);
      }
    }

    /** The bytes the last result took, its header included. */
    long lastResultBytes() {
      return target.written;
    }

    void write(Object value, ClassAllowList allowList, OutputStream out) throws IOException {
      target.start(out);
      stream.start(allowList);
      target.write(HEADER, 0, HEADER.length);
      stream.writeObject(value);
      stream.flush();
      long written = target.written;
      target.start(null);
      stream.reset();
      stream.flush();
      stream.start(null);
      target.written = written;
    }
  }

  /** What a new {@link ObjectOutputStream} writes first: its magic number and version. */
  private static final byte[] HEADER = {
    (byte) (ObjectStreamConstants.STREAM_MAGIC >>> 8),
    (byte) ObjectStreamConstants.STREAM_MAGIC,
    (byte) (ObjectStreamConstants.STREAM_VERSION >>> 8),
    (byte) ObjectStreamConstants.STREAM_VERSION
  };

  /**
   * Encoders ready for use, at most one per slot; a thread takes the one of its slot or makes a new
   * one, so a result that is written while another is (a {@code writeObject} method that records a
   * result) gets a stream of its own. Not tied to threads, so virtual threads share them.
   */
  private static final class EncoderPool {
    /** The largest result after which an encoder is kept. */
    static final int MAX_KEPT_RESULT_BYTES = 64 * 1024;

    private final AtomicReferenceArray<Encoder> slots;

    EncoderPool() {
      int wanted = Math.min(64, 2 * Runtime.getRuntime().availableProcessors());
      slots = new AtomicReferenceArray<>(Integer.highestOneBit(Math.max(wanted - 1, 1)) << 1);
    }

    Encoder take() {
      Encoder encoder = slots.getAndSet(slot(), null);
      return encoder != null ? encoder : new Encoder();
    }

    /**
     * Keeps {@code encoder} for the next result, unless its last result was larger than {@link
     * #MAX_KEPT_RESULT_BYTES}: a stream's handle tables keep the size a large object graph grew
     * them to, and the pool should hold small streams only.
     */
    void release(Encoder encoder) {
      if (encoder.lastResultBytes() <= MAX_KEPT_RESULT_BYTES) {
        slots.compareAndSet(slot(), null, encoder);
      }
    }

    private int slot() {
      return System.identityHashCode(Thread.currentThread()) & (slots.length() - 1);
    }
  }

  /** Refuses, while the result is written, every class that decoding would refuse. */
  private static final class CheckedOutput extends ObjectOutputStream {
    private ClassAllowList allowList;
    private boolean refused;

    CheckedOutput(OutputStream out) throws IOException {
      super(out);
    }

    void start(ClassAllowList allowList) {
      this.allowList = allowList;
      this.refused = false;
    }

    @Override
    protected void annotateClass(Class<?> type) throws IOException {
      if (refused
          || IOException.class.isAssignableFrom(type) && type.getName().startsWith("java.io.")) {
        return; // ObjectOutputStream writes a failure of writing into the (discarded) stream
      }
      String refusal = allowList.refusal(type);
      if (refusal != null) {
        refused =
            true; // ObjectOutputStream then writes the exception itself into the discarded stream
        throw new InvalidClassException(refusal);
      }
    }

    @Override
    protected void annotateProxyClass(Class<?> type) throws IOException {
      throw new InvalidClassException(
          "the result holds a proxy ("
              + type.getName()
              + "), which the Java"
              + " serialization codec never reads back; return plain data");
    }
  }

  /**
   * Where an encoder's stream writes: the output of the result being written, counted to stop at
   * {@link #MAX_BYTES}.
   */
  private static final class Target extends OutputStream {
    /** Null between results: the stream's reset marker is dropped. */
    private OutputStream out;

    private long written;

    void start(OutputStream out) {
      this.out = out;
      this.written = 0;
    }

    @Override
    public void write(int b) throws IOException {
      if (out != null) {
        count(1);
        out.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (out != null) {
        count(len);
        out.write(b, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      if (out != null) {
        out.flush();
      }
    }

    private void count(int n) throws IOException {
      written += n;
      if (written > MAX_BYTES) {
        throw new InvalidObjectException(
            "the result is longer than "
                + MAX_BYTES
                + " bytes once serialized; record a smaller result (an id to look the data up by)");
      }
    }
  }

  /**
   * The check while objects are created: classes (after loading, by the same allow-list), proxies,
   * depth, object count, and the sum of all array lengths, which includes the tables that {@code
   * readObject} methods size from the stream ({@code HashMap} capacity, {@code ArrayList} size). A
   * legitimate stream of {@code n} bytes never needs more than {@code 8n} array slots in all: each
   * element takes a byte at least and a hash table is at most eight times its size.
   */
  private static final class ReadFilter implements ObjectInputFilter {
    private final ClassAllowList allowList;
    private final long streamLength;
    private final long maxArraySlots;
    private long arraySlots;

    ReadFilter(ClassAllowList allowList, int streamLength) {
      this.allowList = allowList;
      this.streamLength = streamLength;
      this.maxArraySlots = 8L * streamLength + 1024;
    }

    @Override
    public Status checkInput(FilterInfo info) {
      if (info.depth() > SerializedStreamCheck.MAX_DEPTH + 1) {
        throw refused(
            "the recorded object graph is nested deeper than " + SerializedStreamCheck.MAX_DEPTH);
      }
      if (info.references() > SerializedStreamCheck.MAX_HANDLES) {
        throw refused(
            "the recorded object graph holds more than "
                + SerializedStreamCheck.MAX_HANDLES
                + " objects");
      }
      if (info.streamBytes() > streamLength) {
        throw refused("the recorded result reads past its own length");
      }
      Class<?> type = info.serialClass();
      if (info.arrayLength() >= 0) {
        arraySlots += info.arrayLength();
        if (arraySlots > maxArraySlots) {
          throw refused(
              "the recorded result asks for an array of "
                  + info.arrayLength()
                  + " elements, more than "
                  + streamLength
                  + " recorded bytes can need");
        }
      }
      if (type == null) {
        return Status.UNDECIDED;
      }
      if (Proxy.isProxyClass(type)) {
        throw refused("the recorded result holds a proxy class, which is refused");
      }
      String refusal = allowList.refusal(type.getName());
      if (refusal != null) {
        throw refused(refusal);
      }
      return Status.ALLOWED;
    }

    private static IllegalStateException refused(String why) {
      return new IllegalStateException(why);
    }
  }

  @Override
  public void checkEncodable(Type type, String where) {
    Class<?> raw = raw(type);
    if (raw == null
        || raw.isPrimitive()
        || raw.isInterface()
        || raw == Object.class
        || raw.isArray()) {
      return;
    }
    if (!Serializable.class.isAssignableFrom(raw) && !Modifier.isAbstract(raw.getModifiers())) {
      throw new IdempotencyConfigurationException(
          where
              + " returns "
              + raw.getName()
              + ", which the Java serialization codec cannot record: implement"
              + " java.io.Serializable, or use the Jackson codec (idempotent.codec=jackson, or"
              + " IdempotencyConfig.builder().codec(ResultCodec.jackson()))");
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
