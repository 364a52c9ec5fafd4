package dev.idempotent.nats.internal;

import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The names the store gives its entries in the bucket. A key-value key must be a valid NATS subject
 * made of the characters {@code A-Z a-z 0-9 - _ = / .}, so no client text is used as it is:
 *
 * <ul>
 *   <li>a record is {@code r.<scope id>.<key>}: the scope's 64-bit {@link RecordKey#scopeId() id}
 *       in 16 lower-case hex digits, and the key's UTF-8 bytes in base64url without padding (one to
 *       one on the well-formed text a fitted key is, so two keys never share an entry, and dots,
 *       spaces, {@code *}, {@code >} or any other character of the key never reach the subject);
 *   <li>a chunk of a large outcome is {@code o.<stem>.<index>}, the stem being the base64url
 *       SHA-256 of the record's name and the completing owner token;
 *   <li>the clock probe of each store instance is {@code clock.<random id>} (see {@link
 *       ServerClock}).
 * </ul>
 */
public final class KeyNames {
  /** Scopes and keys longer than this arrive digested: a record name stays under 1,100 bytes. */
  public static final int MAX_KEY_LENGTH = 256;

  /** The first token of the entry each store instance rewrites to learn the server's clock. */
  public static final String CLOCK_KEY = "clock";

  private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private final String bucket;
  private final String subjectPrefix;

  public KeyNames(String bucket) {
    checkBucket(bucket);
    this.bucket = bucket;
    this.subjectPrefix = "$KV." + bucket + ".";
  }

  /** Refuses a bucket name JetStream would refuse, naming the allowed characters. */
  public static void checkBucket(String bucket) {
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException(
          "bucket name '"
              + bucket
              + "' is not valid: use 1 to 64 characters among A-Z a-z 0-9 _ -");
    }
  }

  public String bucket() {
    return bucket;
  }

  /** The stream behind the bucket. */
  public String stream() {
    return "KV_" + bucket;
  }

  /** The key-value key of a record. */
  public static String recordKey(RecordKey key) {
    long id = key.scopeId();
    StringBuilder sb = new StringBuilder(20 + key.key().length() * 2);
    sb.append("r.");
    String hex = Long.toHexString(id);
    for (int i = hex.length(); i < 16; i++) {
      sb.append('0');
    }
    sb.append(hex).append('.');
    sb.append(
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(key.key().getBytes(StandardCharsets.UTF_8)));
    return sb.toString();
  }

  /** The subject of a key-value key. */
  public String subject(String kvKey) {
    return subjectPrefix + kvKey;
  }

  /** The subject of a record. */
  public String recordSubject(RecordKey key) {
    return subject(recordKey(key));
  }

  /** The stem of the chunk names of an outcome completed by {@code ownerToken} on a record. */
  public static String chunkStem(String recordKey, String ownerToken) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(recordKey.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(ownerToken.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /** The subject of chunk {@code index} of an outcome. */
  public String chunkSubject(String stem, int index) {
    return subjectPrefix + "o." + stem + "." + index;
  }
}
