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
 * cannot instantiate arbitrary classes, do I/O or exhaust memory or time. {@link #jackson()} stores
 * JSON and suits results that are not {@code Serializable} (needs {@code jackson-databind} on the
 * classpath). Implementations must be thread-safe and deterministic.
 */
public interface ResultCodec {

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

  /** JSON through Jackson's {@code ObjectMapper}, typed by the method's generic result type. */
  static ResultCodec jackson() {
    return dev.idempotent.internal.codec.JacksonCodecFactory.create();
  }
}
