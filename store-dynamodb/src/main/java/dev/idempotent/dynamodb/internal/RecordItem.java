package dev.idempotent.dynamodb.internal;

import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The stored form of a record, format version {@value #FORMAT}: one item per key, with these
 * attributes.
 *
 * <table>
 *   <caption>Attributes</caption>
 *   <tr><td>{@code pk} (S)</td><td>the table's partition key: the scope's length in characters,
 *       {@code :}, the scope, then the key (both fitted to {@link #MAX_KEY_LENGTH})</td></tr>
 *   <tr><td>{@code fmt} (N)</td><td>{@value #FORMAT}</td></tr>
 *   <tr><td>{@code status} (S)</td><td>{@code IN_PROGRESS} or {@code COMPLETED}</td></tr>
 *   <tr><td>{@code owner} (S)</td><td>the owner token of the claim (kept once completed)</td></tr>
 *   <tr><td>{@code fingerprint} (S)</td><td>the payload fingerprint; absent when the call had none</td></tr>
 *   <tr><td>{@code outcome} (B)</td><td>the encoded outcome of a completed record; absent while in
 *       progress and when the outcome is empty</td></tr>
 *   <tr><td>{@code expiresAt} (N)</td><td>when the lease (in progress) or the ttl (completed) ends,
 *       in milliseconds since the epoch by the writer's clock: what every condition reads</td></tr>
 *   <tr><td>{@code ttl} (N)</td><td>{@code expiresAt} plus the tolerated clock skew, in whole seconds
 *       since the epoch, rounded up: the table's TTL attribute, for DynamoDB's own clean-up only</td></tr>
 * </table>
 *
 * The length prefix of {@code pk} makes the split into scope and key unambiguous: no two keys share
 * an item.
 */
public final class RecordItem {
  /** The format version this code writes and reads. */
  public static final int FORMAT = 1;

  /**
   * The longest scope or key, in characters: both fit DynamoDB's 2,048-byte partition key at three
   * UTF-8 bytes a character (a surrogate pair is two characters and four bytes), with the prefix.
   */
  public static final int MAX_KEY_LENGTH = 340;

  /** DynamoDB's largest item: 400 KB. */
  public static final int MAX_ITEM_BYTES = 400 * 1024;

  public static final String PK = "pk";
  public static final String FMT = "fmt";
  public static final String STATUS = "status";
  public static final String OWNER = "owner";
  public static final String FINGERPRINT = "fingerprint";
  public static final String OUTCOME = "outcome";
  public static final String EXPIRES_AT = "expiresAt";
  public static final String TTL = "ttl";

  static final String IN_PROGRESS = "IN_PROGRESS";
  static final String COMPLETED = "COMPLETED";

  private RecordItem() {}

  /** The partition key value of {@code key}. */
  public static String partitionKey(RecordKey key) {
    return key.scope().length() + ":" + key.scope() + key.key();
  }

  public static Map<String, AttributeValue> keyOf(RecordKey key) {
    return Map.of(PK, AttributeValue.fromS(partitionKey(key)));
  }

  /** A new claim. */
  static Map<String, AttributeValue> claim(
      RecordKey key, String owner, String fingerprint, long expiresAt, long skewMillis) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(PK, AttributeValue.fromS(partitionKey(key)));
    item.put(FMT, AttributeValue.fromN(Integer.toString(FORMAT)));
    item.put(STATUS, AttributeValue.fromS(IN_PROGRESS));
    item.put(OWNER, AttributeValue.fromS(owner));
    if (fingerprint != null) {
      item.put(FINGERPRINT, AttributeValue.fromS(fingerprint));
    }
    item.put(EXPIRES_AT, number(expiresAt));
    item.put(TTL, ttl(expiresAt, skewMillis));
    return item;
  }

  static AttributeValue number(long value) {
    return AttributeValue.fromN(Long.toString(value));
  }

  /** The TTL attribute for a record expiring at {@code expiresAt}: whole seconds, rounded up. */
  static AttributeValue ttl(long expiresAt, long skewMillis) {
    return number(Math.floorDiv(expiresAt + skewMillis + 999, 1000));
  }

  /** Room kept for the fingerprint, which the completion does not see: a short ASCII digest. */
  private static final int FINGERPRINT_ALLOWANCE = 128;

  /**
   * The size DynamoDB counts for the completed item of {@code key}, at most: attribute names and
   * values in bytes, numbers at their largest (21 bytes), the fingerprint at {@value
   * #FINGERPRINT_ALLOWANCE} bytes.
   */
  static long completedItemBytes(RecordKey key, String owner, int outcome) {
    long size = PK.length() + utf8Length(partitionKey(key));
    size += FMT.length() + 21;
    size += STATUS.length() + COMPLETED.length();
    size += OWNER.length() + utf8Length(owner);
    size += FINGERPRINT.length() + FINGERPRINT_ALLOWANCE;
    size += OUTCOME.length() + outcome;
    size += EXPIRES_AT.length() + 21;
    size += TTL.length() + 21;
    return size;
  }

  private static long utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** The status attribute of {@code item}, or {@code null}. */
  static String status(Map<String, AttributeValue> item) {
    AttributeValue v = item == null ? null : item.get(STATUS);
    return v == null ? null : v.s();
  }

  static String owner(Map<String, AttributeValue> item) {
    AttributeValue v = item == null ? null : item.get(OWNER);
    return v == null ? null : v.s();
  }

  /**
   * The record in {@code item} for {@code key} as of {@code now}: empty when there is no item or it
   * has expired (a claim {@code skewMillis} after its lease ended, a completed record when its ttl
   * ended).
   *
   * @throws IllegalStateException for an item of another format version
   */
  static Optional<IdempotencyRecord> decode(
      RecordKey key, Map<String, AttributeValue> item, long now, long skewMillis) {
    if (item == null || item.isEmpty()) {
      return Optional.empty();
    }
    AttributeValue fmt = item.get(FMT);
    if (fmt == null || !Integer.toString(FORMAT).equals(fmt.n())) {
      throw new IllegalStateException(
          "the item of "
              + key
              + " has format version "
              + (fmt == null ? "none" : fmt.n())
              + ", this store reads version "
              + FORMAT
              + ": the table holds items of another writer or version; give this store a table of"
              + " its own");
    }
    long expiresAt = Long.parseLong(item.get(EXPIRES_AT).n());
    String status = status(item);
    boolean completed = COMPLETED.equals(status);
    if (!completed && !IN_PROGRESS.equals(status)) {
      throw new IllegalStateException("the item of " + key + " has an unknown status");
    }
    if (completed ? expiresAt <= now : expiresAt + skewMillis <= now) {
      return Optional.empty();
    }
    Duration remaining = Duration.ofMillis(Math.max(0, expiresAt - now));
    AttributeValue fp = item.get(FINGERPRINT);
    String fingerprint = fp == null ? null : fp.s();
    String owner = owner(item);
    if (!completed) {
      return Optional.of(IdempotencyRecord.inProgress(key, owner, fingerprint, remaining));
    }
    AttributeValue outcome = item.get(OUTCOME);
    byte[] bytes = outcome == null ? new byte[0] : outcome.b().asByteArray();
    return Optional.of(IdempotencyRecord.completed(key, owner, fingerprint, bytes, remaining));
  }

  static AttributeValue outcome(byte[] outcome) {
    return AttributeValue.fromB(SdkBytes.fromByteArray(outcome));
  }
}
