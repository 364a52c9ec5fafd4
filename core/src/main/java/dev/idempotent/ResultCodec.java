package dev.idempotent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;

/**
 * Turns a method's result into the bytes a store keeps, and back. Results are never {@code null}
 * here ({@code null}, {@code void} and recorded failures are encoded by the library itself).
 *
 * <p>The default, {@link #javaSerialization(String...)}, uses Java serialization behind an
 * allow-list, a deny-list and size limits checked before any class is loaded, so stored bytes
 * cannot instantiate arbitrary classes, do I/O or exhaust memory or time. {@link
 * #jackson(String...)} stores JSON and suits results that are not {@code Serializable} (needs
 * Jackson 3 or Jackson 2 on the class path). Implementations must be thread-safe and deterministic.
 *
 * <p>Every recorded value carries the name of the {@link #format()} its bytes are in, and is handed
 * to {@link #decode} only when {@link #reads(String)} accepts that name: a record written by
 * another codec (after a change of codec) is refused with a message naming both, never decoded as
 * if it were this codec's. The two Jackson codecs read each other's records.
 */
public interface ResultCodec {

  /**
   * The name of the format this codec writes (1 to 255 ASCII characters, no control characters),
   * stored with every recorded value. The built-in codecs write {@code java}, {@code jackson2} and
   * {@code jackson3}; the default is the codec's class name.
   */
  default String format() {
    return getClass().getName();
  }

  /**
   * Whether {@link #decode} reads values recorded in {@code format} (another codec's {@link
   * #format()}). The default reads only its own.
   */
  default boolean reads(String format) {
    return format().equals(format);
  }

  /** Writes {@code value}, declared as {@code type}, to {@code out}. */
  void encode(Object value, Type type, OutputStream out) throws IOException;

  /**
   * Reads a value of {@code type} written by {@link #encode}. The bytes come from the store and are
   * untrusted: throw an {@link IOException} saying what was refused rather than read what {@link
   * #encode} would not write. The library checks that the value is an instance of {@code type}.
   */
  Object decode(InputStream in, Type type) throws IOException;

  /**
   * Called once per operation (an annotated method, a programmatic policy) before it first runs:
   * throws {@link IdempotencyConfigurationException} naming the type and the fix when results of
   * {@code type} can never be encoded. The default accepts all.
   */
  default void checkEncodable(Type type, String where) {}

  /**
   * Java serialization, decoding only classes from {@code java.lang}, {@code java.util}, {@code
   * java.time}, {@code java.math}, {@code java.net.URI}, the packages of each method's declared
   * result types, and {@code allowedPatterns} (the {@link java.io.ObjectInputFilter} pattern
   * syntax: {@code com.example.**}, {@code com.example.Order}); never a class whose reading or
   * hashing can do I/O or run code ({@code java.net.URL}, proxies, lambdas, {@code PriorityQueue},
   * {@code java.rmi}, {@code javax.management}, {@code java.beans}, ...), whatever pattern admits
   * it. Results up to 16 MiB, 64 levels deep and 1,000,000 objects.
   */
  static ResultCodec javaSerialization(String... allowedPatterns) {
    return new dev.idempotent.internal.codec.JavaSerializationCodec(allowedPatterns);
  }

  /**
   * JSON through Jackson, typed by the method's generic result type: Jackson 3 ({@code
   * tools.jackson}) when it is on the class path, else Jackson 2 ({@code com.fasterxml.jackson}).
   * Each reads the other's records. Class names in polymorphic type ids ({@code
   * JsonTypeInfo.Id.CLASS}) are checked against the allow-list {@link
   * #javaSerialization(String...)} describes, with {@code allowedPatterns}; default typing is never
   * used.
   */
  static ResultCodec jackson(String... allowedPatterns) {
    return dev.idempotent.internal.codec.JacksonCodecFactory.create(allowedPatterns);
  }

  /** {@link #jackson(String...)} on Jackson 2 ({@code com.fasterxml.jackson.core}) only. */
  static ResultCodec jackson2(String... allowedPatterns) {
    return dev.idempotent.internal.codec.JacksonCodecFactory.createJackson2(allowedPatterns);
  }

  /** {@link #jackson(String...)} on Jackson 3 ({@code tools.jackson.core}) only. */
  static ResultCodec jackson3(String... allowedPatterns) {
    return dev.idempotent.internal.codec.JacksonCodecFactory.createJackson3(allowedPatterns);
  }
}
