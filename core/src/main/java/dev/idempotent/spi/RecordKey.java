package dev.idempotent.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The identity of one record: a scope (namespace, by default the annotated method) and a key inside
 * it.
 *
 * <h2>What reaches a store</h2>
 *
 * Every store can hold well-formed UTF-16 text without NUL characters, up to its {@link
 * IdempotencyStore#maxKeyLength() maximum length}; {@link #fittedTo(int)} turns the scope and the
 * key each into such a text, never truncating and never merging two different ones:
 *
 * <ul>
 *   <li>a part that is well-formed (no lone surrogate), has no NUL, does not start with a reserved
 *       digest prefix ({@code sha256:} or {@code sha256~}) and fits is kept as it is;
 *   <li>such a part that is longer becomes {@code sha256:} and the base64url SHA-256 digest of its
 *       UTF-8 bytes;
 *   <li>any other part, of any length (a lone surrogate, a NUL, or a reserved prefix at its start)
 *       becomes {@code sha256~} and the base64url SHA-256 digest of its UTF-16 code units, two
 *       bytes each, big-endian.
 * </ul>
 *
 * A digest is 50 characters and the same on every JVM and host. Each encoding is one-to-one on the
 * parts it is used for (UTF-8 would turn every lone surrogate into {@code ?}), and no part kept as
 * it is starts with a reserved prefix, so no text a caller gives can equal the fitted form of
 * another: distinct parts stay distinct.
 *
 * <p>{@link #scopeId()} is the scope's 64-bit id: what a store may keep in place of the scope's
 * text.
 *
 * <p>Messages and logs never show a whole key: use {@link #redactedKey()}.
 */
public final class RecordKey {
  /** Length of a digested scope or key ({@code "sha256:"} plus 43 base64url characters). */
  public static final int DIGEST_LENGTH = 50;

  private static final String DIGEST_PREFIX = "sha256:";

  /**
   * Starts the digest of a part a store cannot hold as it is. Both digest prefixes are reserved: a
   * part that starts with either is digested with this one.
   */
  private static final String CODE_UNIT_DIGEST_PREFIX = "sha256~";

  private final String scope;
  private final String key;

  /**
   * Made by {@link #fittedTo}: its parts are already storable (a {@code sha256~} part is a digest,
   * not an input).
   */
  private final boolean fitted;

  private RecordKey(String scope, String key, boolean fitted) {
    this.scope = scope;
    this.key = key;
    this.fitted = fitted;
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
    return new RecordKey(scope, key, false);
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
   * The scope's 64-bit id: the first 8 bytes of the SHA-256 of its UTF-8 text, big-endian, the same
   * on every JVM. A store may keep it instead of the scope's text; two scopes with one id would
   * share records, which the executor refuses when an operation's plan is first built (and a store
   * that keeps a registry of scopes refuses when a scope first reaches it). Computed once per scope
   * text and kept (up to {@value #MAX_CACHED_SCOPE_IDS} scopes, then the cache starts again).
   */
  public long scopeId() {
    return scopeIdOf(scope);
  }

  /** {@link #scopeId()} of any scope text. */
  public static long scopeIdOf(String scope) {
    Long known = SCOPE_IDS.get(scope);
    if (known != null) {
      return known;
    }
    byte[] d = sha256(scope);
    long id = 0;
    for (int i = 0; i < 8; i++) {
      id = (id << 8) | (d[i] & 0xFF);
    }
    if (SCOPE_IDS.size() >= MAX_CACHED_SCOPE_IDS) {
      SCOPE_IDS.clear();
    }
    SCOPE_IDS.put(scope, id);
    return id;
  }

  private static final int MAX_CACHED_SCOPE_IDS = 10_000;
  private static final Map<String, Long> SCOPE_IDS = new ConcurrentHashMap<>();

  /**
   * This key as a store holds it: scope and key each well-formed, without NUL and at most {@code
   * maxLength} characters; a part that is not is replaced by its digest (see the class
   * description). Returns {@code this} when both parts are kept as they are. Fitting the result
   * again, to the same or a smaller length, gives what fitting this key to that length gives.
   *
   * @param maxLength at least {@link #DIGEST_LENGTH}
   */
  public RecordKey fittedTo(int maxLength) {
    if (maxLength < DIGEST_LENGTH) {
      throw new IllegalArgumentException(
          "maxLength must be at least "
              + DIGEST_LENGTH
              + " (the length of a digest), was "
              + maxLength);
    }
    String fittedScope = fit(scope, maxLength);
    String fittedKey = fit(key, maxLength);
    if (fittedScope == scope && fittedKey == key) {
      return this;
    }
    return new RecordKey(fittedScope, fittedKey, true);
  }

  private String fit(String part, int maxLength) {
    if (!fitted && !keptAsIs(part)) {
      return codeUnitDigest(part);
    }
    return part.length() <= maxLength ? part : digest(part);
  }

  /**
   * Whether {@code part} is well-formed UTF-16, has no NUL and does not start with a reserved
   * prefix.
   */
  private static boolean keptAsIs(String part) {
    if (part.startsWith(CODE_UNIT_DIGEST_PREFIX) || part.startsWith(DIGEST_PREFIX)) {
      return false;
    }
    int length = part.length();
    for (int i = 0; i < length; i++) {
      char c = part.charAt(i);
      if (c == 0) {
        return false;
      }
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c)
            || i + 1 == length
            || !Character.isLowSurrogate(part.charAt(i + 1))) {
          return false;
        }
        i++;
      }
    }
    return true;
  }

  /**
   * A short, deterministic stand-in for the key, safe for messages and logs: {@code key#} and 10
   * hex digits.
   */
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
      sb.append(Character.forDigit((d[i] >> 4) & 0xF, 16))
          .append(Character.forDigit(d[i] & 0xF, 16));
    }
    return sb.toString();
  }

  /** The digest of a well-formed part (UTF-8 is one-to-one on well-formed text). */
  static String digest(String value) {
    return DIGEST_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(value));
  }

  /**
   * The digest of any part, over its UTF-16 code units as they are. Written out by hand: {@code
   * getBytes(UTF_16BE)} would replace lone surrogates too.
   */
  static String codeUnitDigest(String value) {
    byte[] units = new byte[value.length() * 2];
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      units[2 * i] = (byte) (c >>> 8);
      units[2 * i + 1] = (byte) c;
    }
    return CODE_UNIT_DIGEST_PREFIX
        + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(units));
  }

  private static byte[] sha256(String value) {
    return sha256(value.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
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
