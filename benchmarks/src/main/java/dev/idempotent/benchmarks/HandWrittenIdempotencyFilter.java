package dev.idempotent.benchmarks;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP baseline of {@link HttpCostRun}: the idempotency an application would write by hand as a
 * servlet filter, doing the work {@code IdempotencyFilter} does on the same store. It reads the
 * request body and digests it (SHA-256), claims the {@code Idempotency-Key} through the store SPI
 * with that digest, runs the endpoint into a captured response (status, headers, body), completes
 * the claim with them encoded in one array and sends them; a completed key with the same digest is
 * replayed from its record (with {@code Idempotent-Replayed: true}), with another digest refused
 * with 422, a key in progress refused with 409. An exception or a 5xx releases the claim. Requests
 * without the header pass through.
 */
final class HandWrittenIdempotencyFilter implements Filter {
  private static final String KEY_HEADER = "Idempotency-Key";
  private static final AtomicLong OWNERS = new AtomicLong();

  private final IdempotencyStore store;
  private final String scope;
  private final Duration lease;
  private final Duration ttl;

  HandWrittenIdempotencyFilter(IdempotencyStore store, String scope, Duration lease, Duration ttl) {
    this.store = store;
    this.scope = scope;
    this.lease = lease;
    this.ttl = ttl;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    String key = request.getHeader(KEY_HEADER);
    if (key == null) {
      chain.doFilter(request, response);
      return;
    }
    byte[] body = readBody(request);
    String fingerprint = sha256(body);
    RecordKey recordKey = RecordKey.of(scope, key);
    String owner = "hand-" + OWNERS.incrementAndGet();
    ClaimResult claim = store.claim(recordKey, owner, fingerprint, lease);
    if (!claim.isAcquired()) {
      IdempotencyRecord existing = claim.existing();
      if (!existing.isCompleted()) {
        response.setStatus(409);
        response.setHeader("Retry-After", "1");
        return;
      }
      if (!fingerprint.equals(existing.fingerprint())) {
        response.setStatus(422);
        return;
      }
      replay(existing.outcome(), response);
      return;
    }
    CapturedResponse captured = new CapturedResponse(response);
    try {
      chain.doFilter(new BufferedRequest(request, body), captured);
    } catch (IOException | ServletException | RuntimeException | Error e) {
      store.release(recordKey, owner);
      throw e;
    }
    byte[] sent = captured.body.toByteArray();
    if (captured.status >= 500) {
      store.release(recordKey, owner);
    } else {
      store.complete(recordKey, owner, encode(captured.status, captured.headers, sent), ttl);
    }
    response.setStatus(captured.status);
    for (String[] header : captured.headers) {
      response.addHeader(header[0], header[1]);
    }
    response.setContentLength(sent.length);
    response.getOutputStream().write(sent);
  }

  private static byte[] readBody(HttpServletRequest request) throws IOException {
    int length = request.getContentLength();
    ServletInputStream in = request.getInputStream();
    if (length >= 0) {
      return in.readNBytes(length);
    }
    return in.readAllBytes();
  }

  private static String sha256(byte[] body) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  /**
   * Status (2 bytes), header count (2 bytes), each name and value (2-byte length, ISO-8859-1),
   * body.
   */
  static byte[] encode(int status, List<String[]> headers, byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + body.length);
    out.write(status >> 8);
    out.write(status);
    out.write(headers.size() >> 8);
    out.write(headers.size());
    for (String[] header : headers) {
      writeText(out, header[0]);
      writeText(out, header[1]);
    }
    out.write(body, 0, body.length);
    return out.toByteArray();
  }

  private static void writeText(ByteArrayOutputStream out, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
    out.write(bytes.length >> 8);
    out.write(bytes.length);
    out.write(bytes, 0, bytes.length);
  }

  private static void replay(byte[] outcome, HttpServletResponse response) throws IOException {
    int status = (outcome[0] & 0xFF) << 8 | outcome[1] & 0xFF;
    int count = (outcome[2] & 0xFF) << 8 | outcome[3] & 0xFF;
    int at = 4;
    response.setStatus(status);
    for (int i = 0; i < count; i++) {
      int nameLength = (outcome[at] & 0xFF) << 8 | outcome[at + 1] & 0xFF;
      String name = new String(outcome, at + 2, nameLength, StandardCharsets.ISO_8859_1);
      at += 2 + nameLength;
      int valueLength = (outcome[at] & 0xFF) << 8 | outcome[at + 1] & 0xFF;
      String value = new String(outcome, at + 2, valueLength, StandardCharsets.ISO_8859_1);
      at += 2 + valueLength;
      response.addHeader(name, value);
    }
    response.setHeader("Idempotent-Replayed", "true");
    response.setContentLength(outcome.length - at);
    response.getOutputStream().write(outcome, at, outcome.length - at);
  }

  /** The request with its body already read, handed to the endpoint from memory. */
  private static final class BufferedRequest extends HttpServletRequestWrapper {
    private final byte[] body;

    BufferedRequest(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      return new ServletInputStream() {
        private int position;

        @Override
        public int read() {
          return position < body.length ? body[position++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
          if (position >= body.length) {
            return -1;
          }
          int n = Math.min(len, body.length - position);
          System.arraycopy(body, position, b, off, n);
          position += n;
          return n;
        }

        @Override
        public boolean isFinished() {
          return position >= body.length;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException("the endpoint reads blocking");
        }
      };
    }
  }

  /**
   * The endpoint's response held back: status, the headers it sets (but the length), and its body.
   */
  private static final class CapturedResponse extends HttpServletResponseWrapper {
    final List<String[]> headers = new ArrayList<>(4);
    final ByteArrayOutputStream body = new ByteArrayOutputStream(256);
    int status = 200;
    private final ServletOutputStream output =
        new ServletOutputStream() {
          @Override
          public void write(int b) {
            body.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            body.write(b, off, len);
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setWriteListener(WriteListener listener) {
            throw new UnsupportedOperationException("the endpoint writes blocking");
          }
        };

    CapturedResponse(HttpServletResponse response) {
      super(response);
    }

    @Override
    public void setStatus(int sc) {
      status = sc;
    }

    @Override
    public int getStatus() {
      return status;
    }

    @Override
    public void setContentType(String type) {
      setHeader("Content-Type", type);
    }

    @Override
    public void setContentLength(int len) {
      // the length of the captured body is sent
    }

    @Override
    public void setContentLengthLong(long len) {
      // the length of the captured body is sent
    }

    @Override
    public void setHeader(String name, String value) {
      headers.removeIf(h -> h[0].equalsIgnoreCase(name));
      headers.add(new String[] {name, value});
    }

    @Override
    public void addHeader(String name, String value) {
      headers.add(new String[] {name, value});
    }

    @Override
    public String getHeader(String name) {
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          return h[1];
        }
      }
      return null;
    }

    @Override
    public ServletOutputStream getOutputStream() {
      return output;
    }

    @Override
    public java.io.PrintWriter getWriter() {
      throw new UnsupportedOperationException("the endpoint writes bytes");
    }
  }
}
