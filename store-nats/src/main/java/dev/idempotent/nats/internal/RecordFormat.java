package dev.idempotent.nats.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

/**
 * The value of a record entry, format version 1, byte by byte (also in {@code
 * docs/stores/nats.md}):
 *
 * <pre>
 * 0      format version, 1
 * 1      kind: 'P' claim in progress, 'C' completed with the outcome inline, 'K' completed with the
 *        outcome in chunks
 * 2..9   the lease ('P') or ttl ('C', 'K') in milliseconds, signed 64-bit big-endian; the record
 *        expires that long after the entry's server timestamp
 * 10..   owner token: 16-bit big-endian length, then its UTF-8 bytes
 *        fingerprint: 16-bit big-endian length (0xFFFF: none), then its UTF-8 bytes
 * 'C':   the rest is the outcome, as it is
 * 'K':   32-bit chunk count, 32-bit outcome length, the 32-byte SHA-256 of the outcome, then the
 *        43-character chunk stem (ASCII, 16-bit length first)
 * </pre>
 *
 * Lengths are unsigned. A value that does not parse is not a record of this format: the store fails
 * calls of its key and never overwrites it, except by an administrative delete.
 */
public final class RecordFormat {
  public static final byte VERSION = 1;
  public static final byte IN_PROGRESS = 'P';
  public static final byte COMPLETED_INLINE = 'C';
  public static final byte COMPLETED_CHUNKED = 'K';

  private static final int NO_FINGERPRINT = 0xFFFF;
  private static final int MAX_TEXT = 0xFFFE;
  private static final Pattern STEM = Pattern.compile("[A-Za-z0-9_-]{43}");

  private RecordFormat() {}

  /** A decoded record value. */
  public record Value(
      byte kind,
      long durationMillis,
      String owner,
      String fingerprint,
      byte[] inlineOutcome,
      int chunks,
      int outcomeLength,
      byte[] outcomeSha256,
      String chunkStem) {
    public boolean inProgress() {
      return kind == IN_PROGRESS;
    }
  }

  /** The value of a claim. */
  public static byte[] claim(String owner, String fingerprint, long leaseMillis) {
    byte[] o = text("owner token", owner);
    byte[] f = fingerprint == null ? null : text("fingerprint", fingerprint);
    ByteBuffer b = head(IN_PROGRESS, leaseMillis, o, f, 0);
    return b.array();
  }

  /** The number of bytes a completed record adds to its inline outcome. */
  public static int completedOverhead(String owner, String fingerprint) {
    return 14
        + owner.getBytes(StandardCharsets.UTF_8).length
        + (fingerprint == null ? 0 : fingerprint.getBytes(StandardCharsets.UTF_8).length);
  }

  /** The value of a completed record whose outcome is inline. */
  public static byte[] completedInline(
      String owner, String fingerprint, long ttlMillis, byte[] outcome) {
    byte[] o = text("owner token", owner);
    byte[] f = fingerprint == null ? null : text("fingerprint", fingerprint);
    ByteBuffer b = head(COMPLETED_INLINE, ttlMillis, o, f, outcome.length);
    b.put(outcome);
    return b.array();
  }

  /** The value of a completed record whose outcome is in {@code chunks} chunks. */
  public static byte[] completedChunked(
      String owner,
      String fingerprint,
      long ttlMillis,
      int chunks,
      int outcomeLength,
      byte[] sha256,
      String stem) {
    byte[] o = text("owner token", owner);
    byte[] f = fingerprint == null ? null : text("fingerprint", fingerprint);
    byte[] s = stem.getBytes(StandardCharsets.US_ASCII);
    ByteBuffer b = head(COMPLETED_CHUNKED, ttlMillis, o, f, 8 + 32 + 2 + s.length);
    b.putInt(chunks).putInt(outcomeLength).put(sha256).putShort((short) s.length).put(s);
    return b.array();
  }

  private static ByteBuffer head(byte kind, long millis, byte[] owner, byte[] fp, int rest) {
    ByteBuffer b =
        ByteBuffer.allocate(2 + 8 + 2 + owner.length + 2 + (fp == null ? 0 : fp.length) + rest);
    b.put(VERSION).put(kind).putLong(millis);
    b.putShort((short) owner.length).put(owner);
    if (fp == null) {
      b.putShort((short) NO_FINGERPRINT);
    } else {
      b.putShort((short) fp.length).put(fp);
    }
    return b;
  }

  private static byte[] text(String what, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_TEXT) {
      throw new IllegalArgumentException(
          what
              + " is "
              + bytes.length
              + " UTF-8 bytes long: at most "
              + MAX_TEXT
              + " fit a record");
    }
    return bytes;
  }

  /**
   * Decodes a record value.
   *
   * @throws IllegalArgumentException when the bytes are not a record of this format (the message
   *     says what was wrong, never the content)
   */
  public static Value decode(byte[] v) {
    if (v == null || v.length < 14) {
      throw new IllegalArgumentException(
          "not a record: " + (v == null ? 0 : v.length) + " bytes, at least 14 expected");
    }
    if (v[0] != VERSION) {
      throw new IllegalArgumentException(
          "record of format version " + v[0] + ", this store reads version " + VERSION);
    }
    ByteBuffer b = ByteBuffer.wrap(v);
    b.position(1);
    byte kind = b.get();
    if (kind != IN_PROGRESS && kind != COMPLETED_INLINE && kind != COMPLETED_CHUNKED) {
      throw new IllegalArgumentException("record of unknown kind " + (kind & 0xFF));
    }
    long millis = b.getLong();
    String owner = readText(b, false);
    String fp = readText(b, true);
    if (kind == IN_PROGRESS) {
      if (b.hasRemaining()) {
        throw new IllegalArgumentException("claim record with " + b.remaining() + " extra bytes");
      }
      return new Value(kind, millis, owner, fp, null, 0, 0, null, null);
    }
    if (kind == COMPLETED_INLINE) {
      byte[] outcome = new byte[b.remaining()];
      b.get(outcome);
      return new Value(kind, millis, owner, fp, outcome, 0, outcome.length, null, null);
    }
    need(b, 8 + 32 + 2);
    int chunks = b.getInt();
    int length = b.getInt();
    byte[] sha = new byte[32];
    b.get(sha);
    int stemLength = b.getShort() & 0xFFFF;
    need(b, stemLength);
    byte[] stemBytes = new byte[stemLength];
    b.get(stemBytes);
    String stem = new String(stemBytes, StandardCharsets.US_ASCII);
    if (chunks < 1 || length < 0 || b.hasRemaining() || !STEM.matcher(stem).matches()) {
      throw new IllegalArgumentException("chunked outcome record with an invalid chunk list");
    }
    return new Value(kind, millis, owner, fp, null, chunks, length, sha, stem);
  }

  private static String readText(ByteBuffer b, boolean nullable) {
    need(b, 2);
    int length = b.getShort() & 0xFFFF;
    if (length == NO_FINGERPRINT && nullable) {
      return null;
    }
    need(b, length);
    byte[] bytes = new byte[length];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void need(ByteBuffer b, int n) {
    if (b.remaining() < n) {
      throw new IllegalArgumentException("record cut short: " + n + " more bytes expected");
    }
  }

  /** The SHA-256 of {@code bytes}. */
  public static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
