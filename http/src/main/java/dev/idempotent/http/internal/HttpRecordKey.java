package dev.idempotent.http.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The record key of an {@code Idempotency-Key} request inside its rule's scope: the method, the
 * caller, the path and the client's key, in one unambiguous text.
 *
 * <pre>
 *   1 POST &lt;caller&gt; &lt;path length&gt;:&lt;path&gt;&lt;key&gt;
 * </pre>
 *
 * <ul>
 *   <li>{@code 1}: the format's version; another encoding would be another version.
 *   <li>the method: an HTTP token of letters, upper case (a rule admits only such names).
 *   <li>the caller: {@code -} for an anonymous request, else {@code c} and 22 base64url characters
 *       of the SHA-256 of the caller's identity (its UTF-16 code units, two bytes each, big-endian:
 *       one-to-one on any text), so the identity itself is not stored; it never contains a space
 *       and is never {@code -}.
 *   <li>the path's length in characters, a colon and the path; the key is everything after it.
 * </ul>
 *
 * Each field is either of a fixed form or length-prefixed, so no text a client sends (a path ending
 * in what looks like a caller, a key holding spaces) can make two different requests share a record
 * key.
 */
public final class HttpRecordKey {
  /** The version of this encoding, its first field. */
  public static final String FORMAT = "1";

  private static final String ANONYMOUS = "-";

  private HttpRecordKey() {}

  /**
   * @param method the request method, upper case letters
   * @param path the path within the application
   * @param caller the caller's identity, or {@code null} for an anonymous request
   * @param key the client's {@code Idempotency-Key}
   */
  public static String of(String method, String path, String caller, String key) {
    StringBuilder sb = new StringBuilder(40 + path.length() + key.length());
    sb.append(FORMAT).append(' ').append(method).append(' ');
    sb.append(caller == null ? ANONYMOUS : callerDigest(caller)).append(' ');
    sb.append(path.length()).append(':').append(path).append(key);
    return sb.toString();
  }

  /** {@code c} and 22 base64url characters of SHA-256 of the caller's identity. */
  static String callerDigest(String caller) {
    byte[] units = new byte[caller.length() * 2];
    for (int i = 0; i < caller.length(); i++) {
      char c = caller.charAt(i);
      units[2 * i] = (byte) (c >>> 8);
      units[2 * i + 1] = (byte) c;
    }
    byte[] d;
    try {
      d = MessageDigest.getInstance("SHA-256").digest(units);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    byte[] first = new byte[16];
    System.arraycopy(d, 0, first, 0, 16);
    return "c" + Base64.getUrlEncoder().withoutPadding().encodeToString(first);
  }
}
