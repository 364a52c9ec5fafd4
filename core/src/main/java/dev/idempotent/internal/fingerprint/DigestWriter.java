package dev.idempotent.internal.fingerprint;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The output of one walk: a SHA-256 digest per nesting level, the tags, lengths and texts written
 * into them, and the walk's bounds on values and bytes. Tags, lengths and short texts are gathered
 * in a scratch array and given to the digest in one update.
 *
 * <p>The byte format: a tag is one ASCII byte; a length is four bytes, big-endian; a text is its
 * UTF-8 length, then its UTF-8 bytes.
 */
final class DigestWriter {
  private static final MessageDigest PROTOTYPE = newSha256();

  private MessageDigest[] levels = new MessageDigest[8];
  private int values;
  private long bytes;
  private final byte[] scratch = new byte[128];

  /**
   * The digest of nesting level {@code n}, made on first use and reset by each {@code digest()}.
   */
  MessageDigest level(int n) {
    if (n >= levels.length) {
      levels = Arrays.copyOf(levels, Math.max(n + 1, levels.length * 2));
    }
    MessageDigest md = levels[n];
    if (md == null) {
      md = sha256();
      levels[n] = md;
    }
    return md;
  }

  /** Counts one more value of the walk, refusing past {@link ValueDigest#MAX_VALUES}. */
  void count() {
    if (++values > ValueDigest.MAX_VALUES) {
      throw new Refusal(
          "the argument graph is too large to digest (more than "
              + ValueDigest.MAX_VALUES
              + " values)");
    }
  }

  /** Counts {@code n} more bytes of the walk, refusing past {@link ValueDigest#MAX_BYTES}. */
  void countBytes(long n) {
    bytes += n;
    if (bytes > ValueDigest.MAX_BYTES) {
      throw new Refusal(
          "the argument graph is too large to digest (more than "
              + (ValueDigest.MAX_BYTES >> 20)
              + " MiB)");
    }
  }

  static void tag(MessageDigest md, char t) {
    md.update((byte) t);
  }

  /**
   * A tag and a length in one update: the digest sees the same bytes as from {@link #tag} and
   * {@link #len}, with one call through the digest's layers instead of five.
   */
  void tagAndLen(MessageDigest md, char t, int n) {
    byte[] h = scratch;
    h[0] = (byte) t;
    putLen(h, 1, n);
    md.update(h, 0, 5);
  }

  /** A tag, then {@link #text}. */
  void tagAndText(MessageDigest md, char t, String s) {
    textAfter(md, t, s);
  }

  /** The length of the UTF-8 text and the text. */
  void text(MessageDigest md, String s) {
    textAfter(md, -1, s);
  }

  /** The tag (none when negative), the length of the UTF-8 text and the text. */
  private void textAfter(MessageDigest md, int tag, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    countBytes(b.length);
    byte[] h = scratch;
    int at = 0;
    if (tag >= 0) {
      h[at++] = (byte) tag;
    }
    putLen(h, at, b.length);
    at += 4;
    if (b.length <= h.length - at) {
      System.arraycopy(b, 0, h, at, b.length);
      md.update(h, 0, at + b.length);
    } else {
      md.update(h, 0, at);
      md.update(b);
    }
  }

  void len(MessageDigest md, int n) {
    putLen(scratch, 0, n);
    md.update(scratch, 0, 4);
  }

  private static void putLen(byte[] h, int at, int n) {
    h[at] = (byte) (n >>> 24);
    h[at + 1] = (byte) (n >>> 16);
    h[at + 2] = (byte) (n >>> 8);
    h[at + 3] = (byte) n;
  }

  /** A fresh SHA-256 digest. */
  static MessageDigest sha256() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
