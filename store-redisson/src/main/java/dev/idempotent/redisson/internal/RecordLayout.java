package dev.idempotent.redisson.internal;

import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a record lives in Redis: the name of its key, the pub/sub channel its holder notifies on,
 * and where the readable scope of a name is kept.
 *
 * <p>A record of scope {@code S} and key {@code K} is the Redis key {@code <prefix>{<slot
 * tag>}<scope digest>:<K>}:
 *
 * <ul>
 *   <li>{@code <scope digest>} is 8 base64url characters (48 bits) of SHA-256({@code S}); the scope
 *       text itself is kept once, in the hash {@code <prefix>scopes} (digest to scope, see {@link
 *       #scopesName()}), so a name does not repeat a long method signature in every key. The digest
 *       has a fixed length, so names are unambiguous ({@code a:b}+{@code c} and {@code a}+{@code
 *       b:c} differ).
 *   <li>{@code <slot tag>} is the Redis Cluster hash tag: 3 characters chosen to hash to the same
 *       cluster slot as the 16 hex digits of SHA-256({@code S} NUL {@code K}) that the earlier
 *       layout used as its tag (see {@link #legacyName}). So keys still spread evenly over all
 *       16384 slots (a digest of scope and key, never of the scope alone), and a record and its
 *       legacy name are in one slot, which lets one script look at both in a cluster.
 *   <li>the tag is the first brace pair in the name (the prefix may not contain braces), so braces
 *       inside a user's key can never change the slot;
 *   <li>the channel {@code <record name>#changed} and the set {@code <prefix>{<slot
 *       tag>}#released:<scope digest>:<K>} ({@link #releasedOf}) carry the same tag, so they map to
 *       the same slot as the record (which sharded pub/sub and a script over both keys require).
 * </ul>
 */
public final class RecordLayout {
  /** Characters of a slot tag: no braces, nothing a shell or {@code redis-cli} quotes. */
  private static final char[] TAG_ALPHABET =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".toCharArray();

  private static final int SLOTS = 16384;

  /**
   * For each cluster slot, the first 3-character tag (in {@link #TAG_ALPHABET} order) that hashes
   * to it.
   */
  private static final String[] SLOT_TAGS = slotTags();

  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final int SCOPE_DIGEST_CHARS = 8;

  /**
   * Scopes are few (one per idempotent method, mostly): their digests are computed once, not on
   * every call.
   */
  private static final Map<String, String> SCOPE_DIGESTS = new ConcurrentHashMap<>();

  private static final int MAX_CACHED_SCOPE_DIGESTS = 10_000;

  private final String prefix;

  /**
   * @param prefix see {@link #checkPrefix(String)}
   */
  public RecordLayout(String prefix) {
    this.prefix = checkPrefix(prefix);
  }

  /**
   * Returns {@code prefix} when it can start record names: not null, at most 100 characters, no
   * braces (the layout places the cluster hash tag itself).
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
    String legacyTag = legacyTag(key.scope(), key.key());
    return prefix
        + '{'
        + SLOT_TAGS[slot(legacyTag)]
        + '}'
        + scopeDigest(key.scope())
        + ':'
        + key.key();
  }

  /**
   * The name the earlier layout gave the record of {@code key}: the hash {@code <prefix>{<16 hex of
   * SHA-256(S NUL K)>}<length of S>:<S>:<K>}. The store still reads records kept under it (see
   * {@code RedissonIdempotencyStore.Builder#readLegacyRecords}); it is in the same cluster slot as
   * {@link #recordName}.
   */
  public String legacyName(RecordKey key) {
    String scope = key.scope();
    return prefix
        + '{'
        + legacyTag(scope, key.key())
        + '}'
        + scope.length()
        + ':'
        + scope
        + ':'
        + key.key();
  }

  /** The hash that maps each scope digest of a record name to its scope text, for operators. */
  public String scopesName() {
    return prefix + "scopes";
  }

  /** The {@value #SCOPE_DIGEST_CHARS} characters that stand for {@code scope} in record names. */
  public static String scopeDigest(String scope) {
    String known = SCOPE_DIGESTS.get(scope);
    if (known != null) {
      return known;
    }
    byte[] d = sha256().digest(scope.getBytes(StandardCharsets.UTF_8));
    String digest =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(Arrays.copyOf(d, SCOPE_DIGEST_CHARS * 6 / 8));
    if (SCOPE_DIGESTS.size() >= MAX_CACHED_SCOPE_DIGESTS) {
      SCOPE_DIGESTS.clear();
    }
    SCOPE_DIGESTS.put(scope, digest);
    return digest;
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
   * The Redis Cluster slot of a hash tag (CRC16/XMODEM of its bytes, modulo 16384), as the server
   * computes it.
   */
  static int slot(String tag) {
    int crc = 0;
    for (int i = 0; i < tag.length(); i++) {
      crc ^= (tag.charAt(i) & 0xFF) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xFFFF;
    }
    return crc & (SLOTS - 1);
  }

  /** The shortest tag this layout uses for {@code slot}. */
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

  /**
   * Per thread: one digest ({@code MessageDigest.getInstance} is a provider lookup, too slow for
   * every call) and the last legacy tag computed, since a call asks for the same record's names in
   * its claim and again in its completion.
   */
  private static final ThreadLocal<Hashing> HASHING = ThreadLocal.withInitial(Hashing::new);

  private static final class Hashing {
    final MessageDigest sha;
    String scope;
    String key;
    String tag;

    Hashing() {
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is required by every Java platform", e);
      }
    }
  }

  private static MessageDigest sha256() {
    MessageDigest sha = HASHING.get().sha;
    sha.reset();
    return sha;
  }

  /** Two bytes of SHA-256 of an owner token: what a completed record keeps of its owner. */
  public static byte[] ownerDigest(String ownerToken) {
    return Arrays.copyOf(sha256().digest(ownerToken.getBytes(StandardCharsets.UTF_8)), 2);
  }

  static String legacyTag(String scope, String key) {
    Hashing hashing = HASHING.get();
    if (key.equals(hashing.key) && scope.equals(hashing.scope)) {
      return hashing.tag;
    }
    MessageDigest sha = hashing.sha;
    sha.reset();
    sha.update(scope.getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    byte[] d = sha.digest(key.getBytes(StandardCharsets.UTF_8));
    char[] out = new char[16];
    for (int i = 0; i < 8; i++) {
      out[2 * i] = HEX[(d[i] >> 4) & 0xF];
      out[2 * i + 1] = HEX[d[i] & 0xF];
    }
    String tag = new String(out);
    hashing.scope = scope;
    hashing.key = key;
    hashing.tag = tag;
    return tag;
  }
}
