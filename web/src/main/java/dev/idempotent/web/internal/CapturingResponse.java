package dev.idempotent.web.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The response as the application sees it behind the filter. Status and headers go to the real
 * response, which is not committed while the body is held here: {@link #getOutputStream()} and
 * {@link #getWriter()} write into a buffer, {@link #flushBuffer()} commits nothing, {@code
 * Content-Length} is set by the filter at the end.
 *
 * <p>The buffer is bounded: when the body grows past the limit, or the application sends an error
 * through the container ({@link #sendError}), the response <b>passes through</b> — what was
 * buffered is written to the real response and the rest goes straight to it — and it cannot be
 * recorded.
 */
public final class CapturingResponse extends HttpServletResponseWrapper {
  private final HttpServletResponse real;
  private final int limit;
  private final Body buffer = new Body();
  private OutputStream passThrough;
  private boolean overflowed;
  private boolean errorSent;
  private ServletOutputStream stream;
  private PrintWriter writer;

  /** The body as {@link #finish()} last returned it, while nothing was written after; else null. */
  private byte[] finished;

  public CapturingResponse(HttpServletResponse real, int limit) {
    super(real);
    this.real = real;
    this.limit = limit;
  }

  /** True when the body grew past the limit. */
  public boolean overflowed() {
    return overflowed;
  }

  /**
   * True when the response went (or goes) to the client as it is written, so it cannot be recorded.
   */
  public boolean passedThrough() {
    return passThrough != null || errorSent;
  }

  /**
   * Flushes the application's writer into the buffer and returns the body; call after the chain
   * returned. The body is copied out of the buffer once: a later call, and {@link #sendBuffered()},
   * reuse that array unless more was written since. Do not modify it.
   */
  public byte[] finish() {
    if (writer != null) {
      writer.flush();
    }
    if (finished == null) {
      finished = buffer.bytes();
    }
    return finished;
  }

  /** Writes the buffered body to the real response, with its {@code Content-Length}. */
  public void sendBuffered() throws IOException {
    byte[] body = finish();
    if (passedThrough()) {
      if (passThrough != null) {
        passThrough.flush();
      }
      return;
    }
    real.setContentLength(body.length);
    if (body.length > 0) {
      real.getOutputStream().write(body);
    }
  }

  private void write(byte[] b, int off, int len) throws IOException {
    if (errorSent) {
      return;
    }
    finished = null;
    if (passThrough == null && buffer.size() + len > limit) {
      overflowed = true;
      passThrough = real.getOutputStream();
      buffer.writeTo(passThrough);
      buffer.reset();
    }
    if (passThrough != null) {
      passThrough.write(b, off, len);
    } else {
      buffer.write(b, off, len);
    }
  }

  @Override
  public ServletOutputStream getOutputStream() {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called for this response");
    }
    if (stream == null) {
      stream =
          new ServletOutputStream() {
            private final byte[] one = new byte[1];

            @Override
            public void write(int b) throws IOException {
              one[0] = (byte) b;
              CapturingResponse.this.write(one, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              CapturingResponse.this.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
              if (passThrough != null) {
                passThrough.flush();
              }
            }

            @Override
            public boolean isReady() {
              return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
              throw new IllegalStateException(
                  "non-blocking writes are not available behind the idempotency filter");
            }
          };
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() {
    if (stream != null && writer == null) {
      throw new IllegalStateException("getOutputStream() was already called for this response");
    }
    if (writer == null) {
      Charset cs;
      try {
        cs = Charset.forName(getCharacterEncoding());
      } catch (RuntimeException e) {
        cs = StandardCharsets.ISO_8859_1;
      }
      OutputStream sink =
          new OutputStream() {
            @Override
            public void write(int b) throws IOException {
              CapturingResponse.this.write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              CapturingResponse.this.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
              if (passThrough != null) {
                passThrough.flush();
              }
            }
          };
      writer = new PrintWriter(new OutputStreamWriter(sink, cs));
    }
    return writer;
  }

  @Override
  public void flushBuffer() throws IOException {
    if (writer != null) {
      writer.flush();
    }
    if (passThrough != null) {
      real.flushBuffer();
    }
  }

  @Override
  public boolean isCommitted() {
    return passedThrough() && real.isCommitted();
  }

  @Override
  public void resetBuffer() {
    if (passedThrough()) {
      real.resetBuffer();
      return;
    }
    if (writer != null) {
      writer.flush();
    }
    buffer.reset();
    finished = null;
  }

  @Override
  public void reset() {
    resetBuffer();
    real.reset();
  }

  @Override
  public void setBufferSize(int size) {
    if (passedThrough()) {
      real.setBufferSize(size);
    }
  }

  @Override
  public void setContentLength(int len) {
    // the filter sets the length of what it sends; the declared length sizes the buffer
    setContentLengthLong(len);
  }

  @Override
  public void setContentLengthLong(long len) {
    // the filter sets the length of what it sends; the declared length sizes the buffer
    if (len > 0 && len <= limit) {
      buffer.expected = (int) len;
    }
  }

  @Override
  public void setHeader(String name, String value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.setHeader(name, value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.addHeader(name, value);
    }
  }

  @Override
  public void setIntHeader(String name, int value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.setIntHeader(name, value);
    }
  }

  @Override
  public void addIntHeader(String name, int value) {
    if (!"Content-Length".equalsIgnoreCase(name)) {
      super.addIntHeader(name, value);
    }
  }

  @Override
  public void sendError(int sc, String msg) throws IOException {
    errorSent = true;
    buffer.reset();
    finished = null;
    real.sendError(sc, msg);
  }

  @Override
  public void sendError(int sc) throws IOException {
    errorSent = true;
    buffer.reset();
    finished = null;
    real.sendError(sc);
  }

  @Override
  public void sendRedirect(String location) {
    sendRedirect(location, SC_FOUND, true);
  }

  @Override
  public void sendRedirect(String location, boolean clearBuffer) {
    sendRedirect(location, SC_FOUND, clearBuffer);
  }

  @Override
  public void sendRedirect(String location, int sc) {
    sendRedirect(location, sc, true);
  }

  @Override
  public void sendRedirect(String location, int sc, boolean clearBuffer) {
    if (clearBuffer) {
      resetBuffer();
    }
    setStatus(sc);
    setHeader("Location", location);
  }

  /**
   * The held body: one array, sized by the declared {@code Content-Length} or the first write and
   * grown by doubling, handed out as it is when it is exactly full (the usual case of a declared
   * length or a single write), else copied once to its size. An array handed out is never written
   * again: a later write or reset starts another.
   */
  private static final class Body {
    private static final byte[] EMPTY = new byte[0];

    private byte[] bytes = EMPTY;
    private int size;
    private boolean handedOut;

    /** The declared length, when the application set one within the limit; else 0. */
    int expected;

    int size() {
      return size;
    }

    void write(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      int needed = size + len;
      if (needed > bytes.length || handedOut) {
        int grown = Math.max(needed, Math.max(expected, size == 0 ? len : bytes.length * 2));
        bytes = Arrays.copyOf(bytes, grown);
        handedOut = false;
      }
      System.arraycopy(b, off, bytes, size, len);
      size = needed;
    }

    void writeTo(OutputStream out) throws IOException {
      out.write(bytes, 0, size);
    }

    void reset() {
      size = 0;
      if (handedOut) {
        bytes = EMPTY;
        handedOut = false;
      }
    }

    byte[] bytes() {
      if (size == bytes.length) {
        handedOut = true;
        return bytes;
      }
      return Arrays.copyOf(bytes, size);
    }
  }
}
