package dev.idempotent.web.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a protected request's response is recorded as: its status, the headers that may be replayed
 * (in order, repeated names kept) and the body bytes. Encoded to bytes by this class, so every
 * result codec stores it as one opaque {@code byte[]}.
 */
public final class RecordedResponse {
  private static final int FORMAT = 'H' << 8 | 1;

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
    this(status, headers, body, 0, body.length);
  }

  private RecordedResponse(
      int status, List<Map.Entry<String, String>> headers, byte[] body, int offset, int length) {
    this.status = status;
    this.headers = List.copyOf(headers);
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

  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(bodyLength + 64 + headers.size() * 32);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeShort(FORMAT);
      out.writeShort(status);
      out.writeShort(headers.size());
      for (Map.Entry<String, String> h : headers) {
        out.writeUTF(h.getKey());
        out.writeUTF(h.getValue());
      }
      out.writeInt(bodyLength);
      out.write(body, bodyOffset, bodyLength);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * The response recorded in {@code bytes}; its body stays in {@code bytes} (not copied), so do not
   * modify them.
   *
   * @throws IllegalStateException when {@code bytes} were not written by {@link #encode()}
   */
  public static RecordedResponse decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readUnsignedShort() != FORMAT) {
        throw new IllegalStateException(
            "the recorded outcome is not a recorded HTTP response: was this scope "
                + "used by something other than the idempotency filter?");
      }
      int status = in.readUnsignedShort();
      int n = in.readUnsignedShort();
      List<Map.Entry<String, String>> headers = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        headers.add(Map.entry(in.readUTF(), in.readUTF()));
      }
      int length = in.readInt();
      int offset = bytes.length - in.available();
      if (length < 0 || length > in.available()) {
        throw new EOFException(
            "the body is recorded as " + length + " bytes, but " + in.available() + " follow");
      }
      return new RecordedResponse(status, headers, bytes, offset, length);
    } catch (IOException e) {
      throw new IllegalStateException(
          "the recorded HTTP response is truncated or corrupt: " + e, e);
    }
  }
}
