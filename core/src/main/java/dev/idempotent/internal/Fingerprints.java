package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.internal.fingerprint.Refusal;
import dev.idempotent.internal.fingerprint.ValueDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * Payload fingerprints: a version of the format, then a content digest of the value ({@link
 * ValueDigest}, which says what is digested and how). The same values give the same fingerprint on
 * every JVM and host, in every time zone and locale, whatever the identity or sharing of the
 * objects.
 *
 * <p>A fingerprint is {@value #LENGTH} ASCII characters: {@link #VERSION}, then 22 base64url
 * characters (the first 128 bits of the SHA-256 digest). Any change to what is digested, or how, is
 * a new version: fingerprints of different versions are never compared ({@link #sameVersion}), so a
 * record written before an upgrade that changed the format is replayed without its payload check
 * rather than refused as a mismatch.
 */
public final class Fingerprints {
  /** The version of the format, the first character of every fingerprint made here. */
  public static final char VERSION = '1';

  /** The length of a fingerprint: the version and 22 base64url characters. */
  public static final int LENGTH = 23;

  static final int MAX_VALUES = ValueDigest.MAX_VALUES;

  private static final String DEFAULT_ADVICE =
      "pass a value built from plain data (strings, numbers, records, collections) instead";

  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  private Fingerprints() {}

  /**
   * The fingerprint of one value: {@link #VERSION} and 22 base64url characters (128 bits of
   * SHA-256).
   *
   * @throws UndigestableValueException when the value (or a value inside it) has no content-based
   *     form or is too large to digest
   */
  public static String of(Object value) {
    return fingerprint(value, "value", null);
  }

  /**
   * The fingerprint of a method's argument array, the same as {@link #of} of it; problems are
   * reported with the parameter names.
   */
  public static String ofArguments(Object[] arguments, String[] parameterNames) {
    return fingerprint(arguments, "arguments", parameterNames);
  }

  /**
   * Whether two fingerprints were made by the same version of the format, so that comparing them
   * says whether their payloads are the same.
   */
  public static boolean sameVersion(String a, String b) {
    return !a.isEmpty() && !b.isEmpty() && a.charAt(0) == b.charAt(0);
  }

  private static String fingerprint(Object value, String rootName, String[] parameterNames) {
    byte[] digest;
    try {
      digest = ValueDigest.of(value);
    } catch (Refusal r) {
      throw new UndigestableValueException(r.path(rootName, parameterNames), r.reason());
    }
    return VERSION + BASE64URL.encodeToString(Arrays.copyOf(digest, 16));
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
}
