package dev.idempotent.web.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a protected request's response is recorded as: its status, the headers that may be replayed (in order,
 * repeated names kept) and the body bytes. Encoded to bytes by this class, so every result codec stores it as
 * one opaque {@code byte[]}.
 */
public final class RecordedResponse {
  private static final int FORMAT = 'H' << 8 | 1;

  private final int status;
  private final List<Map.Entry<String, String>> headers;
  private final byte[] body;

  public RecordedResponse(int status, List<Map.Entry<String, String>> headers, byte[] body) {
    this.status = status;
    this.headers = List.copyOf(headers);
    this.body = body;
  }

  public int status() {
    return status;
  }

  public List<Map.Entry<String, String>> headers() {
    return headers;
  }

  public byte[] body() {
    return body;
  }

  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 64 + headers.size() * 32);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeShort(FORMAT);
      out.writeShort(status);
      out.writeShort(headers.size());
      for (Map.Entry<String, String> h : headers) {
        out.writeUTF(h.getKey());
        out.writeUTF(h.getValue());
      }
      out.writeInt(body.length);
      out.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** @throws IllegalStateException when {@code bytes} were not written by {@link #encode()} */
  public static RecordedResponse decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readUnsignedShort() != FORMAT) {
        throw new IllegalStateException("the recorded outcome is not a recorded HTTP response: was this scope "
            + "used by something other than the idempotency filter?");
      }
      int status = in.readUnsignedShort();
      int n = in.readUnsignedShort();
      List<Map.Entry<String, String>> headers = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        headers.add(Map.entry(in.readUTF(), in.readUTF()));
      }
      byte[] body = new byte[in.readInt()];
      in.readFully(body);
      return new RecordedResponse(status, headers, body);
    } catch (IOException e) {
      throw new IllegalStateException("the recorded HTTP response is truncated or corrupt: " + e, e);
    }
  }
}
