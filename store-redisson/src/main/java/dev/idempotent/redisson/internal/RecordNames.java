package dev.idempotent.redisson.internal;

import dev.idempotent.spi.RecordKey;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a record lives in Redis: the name of its key, the sharded pub/sub channel on which its
 * waiters are notified, the short-lived set of its released owners, and the store-wide channel of
 * deletes.
 *
 * <p>A record of scope {@code S} and key {@code K} is the Redis key {@code <prefix>{<slot
 * tag>}<scope digest>:<K>}:
 *
 * <ul>
 *   <li>{@code <scope digest>} is {@link RecordKey#scopeId()} (the first 8 bytes of SHA-256 of
 *       {@code S}) in 11 base64url characters. The store keeps nothing else of a scope: no
 *       registry, only this digest in each record name. The digest has a fixed length, so names are
 *       unambiguous ({@code a:b}+{@code c} and {@code a}+{@code b:c} differ).
 *   <li>{@code <slot tag>} is the Redis Cluster hash tag: the first 3-character tag that hashes to
 *       the slot of {@code <scope digest>:<K>} as a whole, braces included (CRC16 of its UTF-8
 *       bytes, modulo 16384, the slot Redis gives a name without braces). So the keys of one scope
 *       spread over all 16384 slots as evenly as Redis spreads keys, and since the tag is the first
 *       brace pair of the name (a prefix may not hold braces), braces in a key never change its
 *       slot.
 *   <li>the channel {@code <record name>#changed} and the set {@code <prefix>{<slot
 *       tag>}#released:<scope digest>:<K>} ({@link #releasedOf}) carry the same tag, so they map to
 *       the slot of the record, which sharded pub/sub and a script over both keys require.
 * </ul>
 */
public final class RecordNames {
  /** Characters of a slot tag: no braces, nothing a shell or {@code redis-cli} quotes. */
  private static final char[] TAG_ALPHABET =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".toCharArray();

  private static final int SLOTS = 16384;

  /**
   * For each cluster slot, the first 3-character tag (in {@link #TAG_ALPHABET} order) that hashes
   * to it.
   */
  private static final String[] SLOT_TAGS = slotTags();

  private static final char[] BASE64URL =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();

  /** Characters of a scope digest: 64 bits in base64url without padding. */
  public static final int SCOPE_DIGEST_CHARS = 11;

  /** What a name needs of a scope, computed once per scope rather than on every call. */
  private record ScopePart(String digest, int crcAfterColon) {}

  /** Scopes are few (one per idempotent method, mostly); past this many the memory restarts. */
  private static final int MAX_CACHED_SCOPES = 10_000;

  private static final Map<String, ScopePart> SCOPES = new ConcurrentHashMap<>();

  private final String prefix;
  private final String deletesChannel;

  /**
   * @param prefix see {@link #checkPrefix(String)}
   */
  public RecordNames(String prefix) {
    this.prefix = checkPrefix(prefix);
    this.deletesChannel = prefix + "#deleted";
  }

  /**
   * Returns {@code prefix} when it can start record names: not null, at most 100 characters, no
   * braces (the store places the cluster hash tag itself).
   *
   * @throws IllegalArgumentException naming the bad prefix and the fix
   */
  public static String checkPrefix(String prefix) {
    if (prefix == null) {
      throw new IllegalArgumentException("keyPrefix must not be null: use \"\" for no prefix");
    }
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          "keyPrefix '"
              + prefix
              + "' contains a brace: remove it, the store adds its own Redis Cluster hash tag after"
              + " the prefix");
    }
    if (prefix.length() > 100) {
      throw new IllegalArgumentException(
          "keyPrefix is " + prefix.length() + " characters long: use at most 100");
    }
    return prefix;
  }

  public String prefix() {
    return prefix;
  }

  /** The name of the Redis key that holds the record of {@code key}. */
  public String recordName(RecordKey key) {
    ScopePart scope = scopePart(key.scope());
    String k = key.key();
    int slot = Crc16.update(scope.crcAfterColon, k) & (SLOTS - 1);
    return new StringBuilder(prefix.length() + 17 + k.length())
        .append(prefix)
        .append('{')
        .append(SLOT_TAGS[slot])
        .append('}')
        .append(scope.digest)
        .append(':')
        .append(k)
        .toString();
  }

  /**
   * The {@value #SCOPE_DIGEST_CHARS} characters that stand for {@code scope} in record names: its
   * {@link RecordKey#scopeIdOf id}, big-endian, in base64url without padding.
   */
  public static String scopeDigest(String scope) {
    return scopePart(scope).digest;
  }

  private static ScopePart scopePart(String scope) {
    ScopePart known = SCOPES.get(scope);
    if (known != null) {
      return known;
    }
    long id = RecordKey.scopeIdOf(scope);
    char[] out = new char[SCOPE_DIGEST_CHARS];
    for (int i = 0; i < 10; i++) {
      out[i] = BASE64URL[(int) (id >>> (58 - 6 * i)) & 63];
    }
    out[10] = BASE64URL[(int) (id & 0xF) << 2];
    String digest = new String(out);
    ScopePart part = new ScopePart(digest, Crc16.update(Crc16.update(0, digest), ":"));
    if (SCOPES.size() >= MAX_CACHED_SCOPES) {
      SCOPES.clear();
    }
    SCOPES.put(scope, part);
    return part;
  }

  /**
   * The sharded pub/sub channel on which the waiters of a record are notified: {@code <record
   * name>#changed}. The scripts derive it from the record name the same way.
   */
  public static String channelOf(String recordName) {
    return recordName + "#changed";
  }

  /**
   * The short-lived set of owner tokens whose release of the record was applied, so that a resent
   * release is answered truthfully: {@code <prefix>{<slot tag>}#released:<scope digest>:<K>}. Same
   * hash tag, so the same cluster slot as the record; and never the name of a record, whatever its
   * key, since {@code #} is not a character of a scope digest (a name that appended to the record's
   * name would be the record name of the key {@code K#released} whenever the two keys' tags
   * matched).
   */
  public static String releasedOf(String recordName) {
    int tagEnd = recordName.indexOf('}') + 1;
    return recordName.substring(0, tagEnd) + "#released:" + recordName.substring(tagEnd);
  }

  /**
   * The store-wide channel on which every administrative delete is announced: {@code
   * <prefix>#deleted}.
   */
  public String deletesChannel() {
    return deletesChannel;
  }

  /**
   * Every text a command on the record of {@code key} (named {@code name}) carries that holds the
   * key: what failure messages leave out.
   */
  public static List<String> sent(RecordKey key, String name) {
    return List.of(name, channelOf(name), releasedOf(name), key.key());
  }

  /**
   * The Redis Cluster slot of a text (CRC16/XMODEM of its UTF-8 bytes, modulo 16384), as the server
   * computes it for a name without a hash tag.
   */
  static int slot(String text) {
    return Crc16.update(0, text) & (SLOTS - 1);
  }

  /** The tag this store uses for {@code slot}. */
  static String slotTag(int slot) {
    return SLOT_TAGS[slot];
  }

  private static String[] slotTags() {
    String[] tags = new String[SLOTS];
    int found = 0;
    char[] t = new char[3];
    for (char a : TAG_ALPHABET) {
      for (char b : TAG_ALPHABET) {
        for (char c : TAG_ALPHABET) {
          t[0] = a;
          t[1] = b;
          t[2] = c;
          String tag = new String(t);
          int slot = slot(tag);
          if (tags[slot] == null) {
            tags[slot] = tag;
            found++;
          }
        }
      }
    }
    if (found != SLOTS) {
      throw new IllegalStateException(
          "3-character tags reach only " + found + " of " + SLOTS + " slots");
    }
    return tags;
  }
}
