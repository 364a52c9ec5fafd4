package dev.idempotent.redisson.internal;

import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Where a record lives in Redis: the name of its hash and the pub/sub channel its holder notifies on.
 *
 * <p>A record of scope {@code S} and key {@code K} is the hash
 * {@code <prefix>{<tag>}<length of S>:<S>:<K>}, where {@code <tag>} is 16 hex digits of
 * SHA-256({@code S} NUL {@code K}). The braces make {@code <tag>} the Redis Cluster hash tag:
 * <ul>
 *   <li>the tag is a digest of scope and key, so different keys spread evenly over all 16384 slots, even
 *       when one scope holds millions of keys (a tag over the scope alone would pin a whole method to one
 *       node);</li>
 *   <li>the tag is the first brace pair in the name (the prefix may not contain braces), so braces inside a
 *       user's scope or key can never change the slot;</li>
 *   <li>the channel {@code <record name>#changed} and the set {@code <record name>#released} carry the same
 *       tag, so they map to the same slot as the record (which sharded pub/sub and a script over both keys
 *       require).</li>
 * </ul>
 * The scope length makes the name unambiguous ({@code a:b}+{@code c} and {@code a}+{@code b:c} differ) and
 * the plain scope and key keep names readable in {@code redis-cli}.
 */
public final class RecordLayout {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final String prefix;

  /** @param prefix see {@link #checkPrefix(String)} */
  public RecordLayout(String prefix) {
    this.prefix = checkPrefix(prefix);
  }

  /**
   * Returns {@code prefix} when it can start record names: not null, at most 100 characters, no braces (the
   * layout places the cluster hash tag itself).
   *
   * @throws IllegalArgumentException naming the bad prefix and the fix
   */
  public static String checkPrefix(String prefix) {
    if (prefix == null) {
      throw new IllegalArgumentException("keyPrefix must not be null: use \"\" for no prefix");
    }
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("keyPrefix '" + prefix
          + "' contains a brace: remove it, the store adds its own Redis Cluster hash tag after the prefix");
    }
    if (prefix.length() > 100) {
      throw new IllegalArgumentException("keyPrefix is " + prefix.length() + " characters long: use at most 100");
    }
    return prefix;
  }

  public String prefix() {
    return prefix;
  }

  /** The name of the Redis hash that holds the record of {@code key}. */
  public String recordName(RecordKey key) {
    String scope = key.scope();
    return prefix + '{' + tag(scope, key.key()) + '}' + scope.length() + ':' + scope + ':' + key.key();
  }

  /** The pub/sub channel on which completion and release of {@code key} are announced. */
  public String channelName(RecordKey key) {
    return channelOf(recordName(key));
  }

  /** The channel of an already computed record name. */
  public static String channelOf(String recordName) {
    return recordName + "#changed";
  }

  /**
   * The short-lived set of owner tokens whose release of the record was applied, so that a resent release is
   * answered truthfully; same hash tag, so the same cluster slot as the record.
   */
  public static String releasedOf(String recordName) {
    return recordName + "#released";
  }

  /** One digest per thread: {@code MessageDigest.getInstance} is a provider lookup, too slow for every call. */
  private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  });

  static String tag(String scope, String key) {
    MessageDigest sha = SHA_256.get();
    sha.reset();
    sha.update(scope.getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    byte[] d = sha.digest(key.getBytes(StandardCharsets.UTF_8));
    char[] out = new char[16];
    for (int i = 0; i < 8; i++) {
      out[2 * i] = HEX[(d[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[d[i] & 0xF];
    }
    return new String(out);
  }
}
