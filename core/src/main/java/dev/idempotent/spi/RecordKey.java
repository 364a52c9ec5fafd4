package dev.idempotent.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The identity of one record: a scope (namespace, by default the annotated method) and a key inside it.
 *
 * <p>Keys that are longer than a store can index are never truncated: {@link #fittedTo(int)} replaces the
 * scope or the key by {@code sha256:} followed by the base64url SHA-256 digest of its UTF-8 bytes (50
 * characters), which is the same on every JVM and host.
 *
 * <p>Messages and logs never show a whole key: use {@link #redactedKey()}.
 */
public final class RecordKey {
  /** Length of a digested scope or key ({@code "sha256:"} plus 43 base64url characters). */
  public static final int DIGEST_LENGTH = 50;

  private static final String DIGEST_PREFIX = "sha256:";

  private final String scope;
  private final String key;

  private RecordKey(String scope, String key) {
    this.scope = scope;
    this.key = key;
  }

  /**
   * @param scope non-empty namespace
   * @param key non-blank key
   * @throws IllegalArgumentException naming the blank part
   */
  public static RecordKey of(String scope, String key) {
    if (scope == null || scope.isEmpty()) {
      throw new IllegalArgumentException("scope must not be null or empty");
    }
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("key must not be null or blank (scope " + scope + ")");
    }
    return new RecordKey(scope, key);
  }

  /** The namespace of the key. */
  public String scope() {
    return scope;
  }

  /** The key inside its scope. */
  public String key() {
    return key;
  }

  /**
   * This key with its scope and key each at most {@code maxLength} characters: a part that is longer is
   * replaced by its digest. Returns {@code this} when both fit.
   *
   * @param maxLength at least {@link #DIGEST_LENGTH}
   */
  public RecordKey fittedTo(int maxLength) {
    if (maxLength < DIGEST_LENGTH) {
      throw new IllegalArgumentException(
          "maxLength must be at least " + DIGEST_LENGTH + " (the length of a digest), was " + maxLength);
    }
    if (scope.length() <= maxLength && key.length() <= maxLength) {
      return this;
    }
    return new RecordKey(
        scope.length() <= maxLength ? scope : digest(scope),
        key.length() <= maxLength ? key : digest(key));
  }

  /** A short, deterministic stand-in for the key, safe for messages and logs: {@code key#} and 10 hex digits. */
  public String redactedKey() {
    return redact(key);
  }

  /** The redacted form of any key string, as used by {@link #redactedKey()}. */
  public static String redact(String key) {
    if (key == null) {
      return "key#null";
    }
    byte[] d = sha256(key);
    StringBuilder sb = new StringBuilder("key#");
    for (int i = 0; i < 5; i++) {
      sb.append(Character.forDigit((d[i] >> 4) & 0xF, 16)).append(Character.forDigit(d[i] & 0xF, 16));
    }
    return sb.toString();
  }

  static String digest(String value) {
    return DIGEST_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(value));
  }

  private static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordKey other && scope.equals(other.scope) && key.equals(other.key);
  }

  @Override
  public int hashCode() {
    return 31 * scope.hashCode() + key.hashCode();
  }

  /** Scope and redacted key; never the whole key. */
  @Override
  public String toString() {
    return scope + "/" + redactedKey();
  }
}
