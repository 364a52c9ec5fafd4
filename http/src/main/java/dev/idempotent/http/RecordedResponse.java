package dev.idempotent.http;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What a protected request's response is recorded as: its status, the headers that may be replayed
 * (in order, repeated names kept) and the body bytes. Encoded to bytes by this class, so every
 * result codec stores it as one opaque {@code byte[]}.
 */
public final class RecordedResponse {
  private static final int FORMAT = 'H' << 8 | 1;

  /** The format of the record of a streamed response: its status only, nothing to replay. */
  private static final int STREAMED = 'S' << 8 | 1;

  private final int status;
  private final List<Map.Entry<String, String>> headers;

  /**
   * The body is {@code bodyLength} bytes of this array from {@code bodyOffset}: the record's own
   * bytes, once read.
   */
  private final byte[] body;

  private final int bodyOffset;
  private final int bodyLength;

  public RecordedResponse(int status, List<Map.Entry<String, String>> headers, byte[] body) {
    this(status, List.copyOf(headers), body, 0, body.length);
  }

  /** With {@code headers} unmodifiable already, not copied. */
  private RecordedResponse(
      int status, List<Map.Entry<String, String>> headers, byte[] body, int offset, int length) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.bodyOffset = offset;
    this.bodyLength = length;
  }

  public int status() {
    return status;
  }

  public List<Map.Entry<String, String>> headers() {
    return headers;
  }

  /** A copy of the body's bytes. */
  public byte[] body() {
    return java.util.Arrays.copyOfRange(body, bodyOffset, bodyOffset + bodyLength);
  }

  /** The number of body bytes. */
  public int bodyLength() {
    return bodyLength;
  }

  /**
   * Writes the body to {@code out} in one write, straight out of the bytes it was read from (no
   * copy).
   */
  public void writeBodyTo(OutputStream out) throws IOException {
    if (bodyLength > 0) {
      out.write(body, bodyOffset, bodyLength);
    }
  }

  /**
   * The record: format, status, header count (two bytes each), each header's name and value as
   * {@link java.io.DataOutput#writeUTF} writes them, the body's length (four bytes) and the body,
   * written into one array of exactly that size.
   *
   * @throws IllegalArgumentException when a header name or value is longer than 65,535 bytes
   */
  public byte[] encode() {
    int size = 2 + 2 + 2 + 4 + bodyLength;
    for (Map.Entry<String, String> h : headers) {
      size += 2 + utfLength(h.getKey()) + 2 + utfLength(h.getValue());
    }
    byte[] out = new byte[size];
    int at = putShort(out, 0, FORMAT);
    at = putShort(out, at, status);
    at = putShort(out, at, headers.size());
    for (Map.Entry<String, String> h : headers) {
      at = putUtf(out, at, h.getKey());
      at = putUtf(out, at, h.getValue());
    }
    at = putShort(out, at, bodyLength >>> 16);
    at = putShort(out, at, bodyLength);
    System.arraycopy(body, bodyOffset, out, at, bodyLength);
    return out;
  }

  /**
   * The record of a response that was streamed to its client as it was written (server-sent events,
   * NDJSON): it completes the key, so the work does not run again, but holds nothing to replay; a
   * repeat is answered {@link HttpProblem#RESPONSE_STREAMED}.
   */
  public static byte[] encodeStreamed(int status) {
    byte[] out = new byte[4];
    putShort(out, putShort(out, 0, STREAMED), status);
    return out;
  }

  /** Whether {@code bytes} are the record of a streamed response ({@link #encodeStreamed}). */
  public static boolean isStreamed(byte[] bytes) {
    return bytes.length == 4 && readShort(bytes, 0) == STREAMED;
  }

  /**
   * The response recorded in {@code bytes}; its body stays in {@code bytes} (not copied), so do not
   * modify them.
   *
   * @throws IllegalStateException when {@code bytes} were not written by {@link #encode()}
   */
  public static RecordedResponse decode(byte[] bytes) {
    if (bytes.length < 2 || readShort(bytes, 0) != FORMAT) {
      throw new IllegalStateException(
          "the recorded outcome is not a recorded HTTP response: was this scope "
              + "used by something other than the idempotency filter?");
    }
    Reader in = new Reader(bytes);
    in.at = 2;
    int status = in.unsignedShort();
    int n = in.unsignedShort();
    List<Map.Entry<String, String>> headers = new ArrayList<>(Math.min(n, 64));
    for (int i = 0; i < n; i++) {
      String name = in.utf();
      headers.add(Map.entry(name, in.utf()));
    }
    int length = in.unsignedShort() << 16 | in.unsignedShort();
    int follow = bytes.length - in.at;
    if (length < 0 || length > follow) {
      throw corrupt("the body is recorded as " + length + " bytes, but " + follow + " follow");
    }
    return new RecordedResponse(
        status, Collections.unmodifiableList(headers), bytes, in.at, length);
  }

  private static IllegalStateException corrupt(String why) {
    return new IllegalStateException("the recorded HTTP response is truncated or corrupt: " + why);
  }

  private static int readShort(byte[] b, int at) {
    return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
  }

  private static int putShort(byte[] out, int at, int v) {
    out[at] = (byte) (v >>> 8);
    out[at + 1] = (byte) v;
    return at + 2;
  }

  /** The length of {@code s} in modified UTF-8 ({@code writeUTF}); at most 65,535. */
  private static int utfLength(String s) {
    int n = s.length();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x800) {
        n += 2;
      } else if (c >= 0x80 || c == 0) {
        n += 1;
      }
    }
    if (n > 0xFFFF) {
      throw new IllegalArgumentException(
          "a header of " + n + " bytes is too long to record (at most 65,535)");
    }
    return n;
  }

  private static int putUtf(byte[] out, int at, String s) {
    int start = at;
    at += 2;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != 0 && c < 0x80) {
        out[at++] = (byte) c;
      } else if (c < 0x800) {
        out[at++] = (byte) (0xC0 | c >> 6);
        out[at++] = (byte) (0x80 | c & 0x3F);
      } else {
        out[at++] = (byte) (0xE0 | c >> 12);
        out[at++] = (byte) (0x80 | c >> 6 & 0x3F);
        out[at++] = (byte) (0x80 | c & 0x3F);
      }
    }
    putShort(out, start, at - start - 2);
    return at;
  }

  /** Reads a record, every length checked against what is there. */
  private static final class Reader {
    final byte[] bytes;
    int at;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    int unsignedShort() {
      if (bytes.length - at < 2) {
        throw corrupt("it ends at byte " + bytes.length);
      }
      int v = readShort(bytes, at);
      at += 2;
      return v;
    }

    /** A string as {@code writeUTF} writes it; plain ASCII without a decoder. */
    String utf() {
      int length = unsignedShort();
      if (bytes.length - at < length) {
        throw corrupt("a header is recorded as " + length + " bytes, but fewer follow");
      }
      int from = at;
      at += length;
      boolean ascii = true;
      for (int i = from; i < at; i++) {
        byte b = bytes[i];
        if (b <= 0) {
          ascii = false;
          break;
        }
      }
      if (ascii) {
        return new String(bytes, from, length, StandardCharsets.ISO_8859_1);
      }
      byte[] framed = new byte[length + 2];
      putShort(framed, 0, length);
      System.arraycopy(bytes, from, framed, 2, length);
      try {
        return new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
      } catch (IOException e) {
        throw corrupt("a header is not modified UTF-8 (" + e + ")");
      }
    }
  }
}
