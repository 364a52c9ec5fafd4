package dev.idempotent.redisson.internal;

import dev.idempotent.IdempotencyOutcomeException;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The value of a record: a Redis string whose first byte, the format byte, names the format version
 * (its high four bits) and the kind of record (its low four bits): {@code 0x11} a claim, {@code
 * 0x12} a completed record without a fingerprint, {@code 0x13} one with a fingerprint. The format,
 * byte by byte, and why each byte is there: {@code docs/stores/redis.md}, section "Record format".
 * Writing happens here (the values of claims, the parts a completion is built from) and in {@link
 * RecordScript} (which turns a claim into a completed record on the server); reading happens here
 * only.
 *
 * <p>A value under a record's name that is not a record of this format (another Redis type, a
 * string of another format version, too short or too long for its kind) is never read as a record:
 * every call of the key fails with {@link IdempotencyOutcomeException} naming what Redis holds
 * there.
 */
public final class RecordFormat {
  /** The format version, the high four bits of the first byte of every record. */
  public static final int VERSION = 1;

  /** The format byte of a claim. */
  static final byte CLAIM = 0x11;

  /** The format byte of a completed record without a fingerprint. */
  static final byte COMPLETED = 0x12;

  /** The format byte of a completed record with a fingerprint. */
  static final byte COMPLETED_WITH_FINGERPRINT = 0x13;

  /** The longest owner token a claim keeps, in UTF-8 bytes (its length takes one byte). */
  public static final int MAX_OWNER_BYTES = 255;

  /**
   * The longest fingerprint a record keeps, in UTF-8 bytes (its length takes two bytes, and in a
   * claim 0xFFFF stands for none).
   */
  public static final int MAX_FINGERPRINT_BYTES = 65_534;

  /** The fingerprint length of a claim without a fingerprint. */
  private static final int NO_FINGERPRINT = 0xFFFF;

  /** Bytes of a claim before the owner token: format byte, waiters flag, owner length. */
  private static final int CLAIM_HEADER = 3;

  /** Bytes of a completed record before its fingerprint part or outcome: format byte, digest. */
  private static final int COMPLETED_HEADER = 3;

  private RecordFormat() {}

  /**
   * The owner part of a claim, which complete, release and renew compare on the server: the token's
   * length in one byte and its UTF-8 bytes.
   *
   * @throws IllegalArgumentException when the token is empty or longer than {@value
   *     #MAX_OWNER_BYTES} bytes
   */
  public static byte[] ownerPart(String ownerToken) {
    if (ownerToken == null || ownerToken.isEmpty()) {
      throw new IllegalArgumentException("ownerToken must not be null or empty");
    }
    byte[] token = ownerToken.getBytes(StandardCharsets.UTF_8);
    if (token.length > MAX_OWNER_BYTES) {
      throw new IllegalArgumentException(
          "ownerToken is "
              + token.length
              + " bytes long in UTF-8: the Redis store keeps at most "
              + MAX_OWNER_BYTES
              + "; use a shorter unique token (the executor's are about 25 characters)");
    }
    byte[] part = new byte[1 + token.length];
    part[0] = (byte) token.length;
    System.arraycopy(token, 0, part, 1, token.length);
    return part;
  }

  /**
   * The value of a new claim: format byte {@code 0x11}, waiters flag 0, the owner part, the
   * fingerprint's length (two bytes, big-endian, 0xFFFF for none) and the fingerprint.
   *
   * @throws IllegalArgumentException when the fingerprint is longer than {@value
   *     #MAX_FINGERPRINT_BYTES} bytes
   */
  public static byte[] claim(byte[] ownerPart, String fingerprint) {
    byte[] f = fingerprint == null ? null : fingerprint.getBytes(StandardCharsets.UTF_8);
    if (f != null && f.length > MAX_FINGERPRINT_BYTES) {
      throw new IllegalArgumentException(
          "fingerprint is "
              + f.length
              + " bytes long: the Redis store keeps at most "
              + MAX_FINGERPRINT_BYTES
              + "; use a digest of the payload as the fingerprint");
    }
    int fingerprintLength = f == null ? 0 : f.length;
    byte[] value = new byte[CLAIM_HEADER - 1 + ownerPart.length + 2 + fingerprintLength];
    value[0] = CLAIM;
    value[1] = 0;
    System.arraycopy(ownerPart, 0, value, 2, ownerPart.length);
    int at = 2 + ownerPart.length;
    int stored = f == null ? NO_FINGERPRINT : f.length;
    value[at] = (byte) (stored >>> 8);
    value[at + 1] = (byte) stored;
    if (f != null) {
      System.arraycopy(f, 0, value, at + 2, f.length);
    }
    return value;
  }

  /**
   * The owner digest a completed record keeps, as its two bytes: CRC16/XMODEM of the token's UTF-8
   * bytes, big-endian. The completion script writes it after the format byte and answers a resent
   * completion by comparing it and the outcome.
   */
  public static byte[] ownerDigestBytes(String ownerToken) {
    int digest = ownerDigest(ownerToken);
    return new byte[] {(byte) (digest >>> 8), (byte) digest};
  }

  /**
   * The two bytes a completed record keeps of its owner token: CRC16 of the token's UTF-8 bytes,
   * enough to answer a resent completion truthfully (a different token has the same digest with a
   * chance of 1 in 65536; tokens that differ in up to 16 consecutive bits never do).
   */
  public static int ownerDigest(String ownerToken) {
    return Crc16.update(0, ownerToken);
  }

  /**
   * The record a script reply describes, or {@code null} when the reply says there is none. A reply
   * is empty (no record), {@code {value, remaining ms}} (the string under the record's name) or
   * {@code {type}} (another Redis type there).
   *
   * @param prefix the store's key prefix, for the message of a value that is not a record
   * @throws IdempotencyOutcomeException when the value is not a record of this format
   */
  public static IdempotencyRecord fromReply(RecordKey key, List<Object> reply, String prefix) {
    if (reply.isEmpty()) {
      return null;
    }
    if (reply.size() == 1) {
      throw notARecord(key, "a " + text(reply.get(0)), prefix);
    }
    return decode(key, (byte[]) reply.get(0), asLong(reply.get(1)), prefix);
  }

  /**
   * The record a string value holds, {@code remainingMillis} from its end.
   *
   * @throws IdempotencyOutcomeException when the value is not a record of this format
   */
  public static IdempotencyRecord decode(
      RecordKey key, byte[] value, long remainingMillis, String prefix) {
    String problem = problem(value);
    if (problem != null) {
      throw notARecord(key, problem, prefix);
    }
    Duration left = Duration.ofMillis(Math.max(0, remainingMillis));
    if (value[0] == CLAIM) {
      int ownerLength = value[2] & 0xFF;
      String owner = new String(value, CLAIM_HEADER, ownerLength, StandardCharsets.UTF_8);
      int at = CLAIM_HEADER + ownerLength;
      int length = fingerprintLength(value, at);
      String fingerprint =
          length == NO_FINGERPRINT
              ? null
              : new String(value, at + 2, length, StandardCharsets.UTF_8);
      return IdempotencyRecord.inProgress(key, owner, fingerprint, left);
    }
    if (value[0] == COMPLETED) {
      return IdempotencyRecord.completed(
          key, null, null, Arrays.copyOfRange(value, COMPLETED_HEADER, value.length), left);
    }
    int length = fingerprintLength(value, COMPLETED_HEADER);
    int from = COMPLETED_HEADER + 2;
    return IdempotencyRecord.completed(
        key,
        null,
        new String(value, from, length, StandardCharsets.UTF_8),
        Arrays.copyOfRange(value, from + length, value.length),
        left);
  }

  /** What is wrong with {@code value} as a record of this format, or {@code null} when nothing. */
  static String problem(byte[] value) {
    int n = value.length;
    if (n == 0) {
      return "an empty string";
    }
    int format = value[0] & 0xFF;
    if (format >>> 4 != VERSION) {
      return String.format(
          Locale.ROOT,
          "a string of %d bytes whose first byte, 0x%02x, would name format version %d (or it is"
              + " not a record at all), where this store reads format version %d",
          n,
          format,
          format >>> 4,
          VERSION);
    }
    switch (value[0]) {
      case CLAIM -> {
        if (n >= CLAIM_HEADER + 1 + 2 && (value[1] == 0 || value[1] == 1) && value[2] != 0) {
          int at = CLAIM_HEADER + (value[2] & 0xFF);
          if (n >= at + 2) {
            int length = fingerprintLength(value, at);
            if (n == at + 2 + (length == NO_FINGERPRINT ? 0 : length)) {
              return null;
            }
          }
        }
        return "a string of " + n + " bytes that is not a well-formed claim of format version 1";
      }
      case COMPLETED -> {
        if (n >= COMPLETED_HEADER) {
          return null;
        }
      }
      case COMPLETED_WITH_FINGERPRINT -> {
        if (n >= COMPLETED_HEADER + 2
            && n >= COMPLETED_HEADER + 2 + fingerprintLength(value, COMPLETED_HEADER)) {
          return null;
        }
      }
      default -> {
        return String.format(
            Locale.ROOT,
            "a string of %d bytes of format version 1 with the unknown kind 0x%02x",
            n,
            format);
      }
    }
    return "a string of "
        + n
        + " bytes that is not a well-formed completed record of format version 1";
  }

  private static int fingerprintLength(byte[] value, int at) {
    return (value[at] & 0xFF) << 8 | (value[at + 1] & 0xFF);
  }

  /**
   * The failure of a call whose record's name holds {@code what}, which is not a record of this
   * store: an {@link IdempotencyOutcomeException}, which the executor never treats as a store
   * outage (so not even fail-open runs the method over what may be someone's record).
   */
  public static IdempotencyOutcomeException notARecord(RecordKey key, String what, String prefix) {
    return new IdempotencyOutcomeException(
        "Redis holds "
            + what
            + " under the name of this record, which is not a record of this store, so the call"
            + " did not run: is another program, or another version of this library, writing"
            + " under the key prefix '"
            + prefix
            + "'? Look at the value, then delete it (RedissonIdempotencyStore.delete) once running"
            + " the call again is safe",
        key.scope(),
        key.redactedKey(),
        null);
  }

  static String text(Object value) {
    if (value instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    return String.valueOf(value);
  }

  static long asLong(Object value) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    return Long.parseLong(text(value));
  }
}
