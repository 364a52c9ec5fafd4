package dev.idempotent.internal.fingerprint;

/**
 * Deterministic SHA-256 digests of values, by content only: the same values give the same digest on
 * every JVM and host, in every time zone and locale, whatever the identity or sharing of the
 * objects.
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
 * <p>The walk ({@link ValueWalker}) is bounded ({@value #MAX_VALUES} values, {@value #MAX_BYTES}
 * bytes, {@value #MAX_DEPTH} levels). A value with no content-based form — a lambda, a hidden,
 * synthetic or generated proxy class, a lock, thread, stream, reader, iterator, future, class
 * loader, persistence-provider proxy, servlet request, a JDK type not listed here, a class with no
 * fields and no {@code toString} of its own, a field the module system does not let us read — is
 * refused ({@link UndigestableTypes}, {@link TypeForms}). Nothing is ever digested by identity hash
 * code or by runtime class names that differ between JVMs.
 *
 * <p>Any change to what these classes write changes digests: it is a new version of the fingerprint
 * format ({@code dev.idempotent.internal.Fingerprints#VERSION}).
 */
public final class ValueDigest {
  /** The deepest nesting walked. */
  public static final int MAX_DEPTH = 256;

  /** The most values walked. */
  public static final int MAX_VALUES = 1_000_000;

  /** The most bytes (of texts, byte arrays and buffers) walked. */
  public static final long MAX_BYTES = 64L << 20;

  private ValueDigest() {}

  /**
   * The 32-byte SHA-256 digest of {@code value}'s content.
   *
   * @throws Refusal when the value, or a value inside it, has no content-based form or the value is
   *     too large to digest
   */
  public static byte[] of(Object value) {
    return new ValueWalker().digest(value);
  }
}
