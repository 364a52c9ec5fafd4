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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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
 *
 * <p>After an asynchronous request timed out, the filter {@link #holdErrors() holds} an error the
 * application sends instead of passing it to the container, and once it has answered the client
 * itself it {@link #detach() detaches} this response from the real one: the work that goes on
 * writes its status, headers and body here only, to be recorded when it ends.
 */
public final class ServletResponseCapture extends HttpServletResponseWrapper {
  private final HttpServletResponse real;
  private final int limit;
  private final Body buffer = new Body();
  private OutputStream passThrough;
  private boolean overflowed;
  private boolean streamed;
  private boolean streamChecked;
  private boolean errorSent;
  private volatile boolean holdErrors;
  private volatile boolean answeredSinceHold;
  private volatile Detached detached;
  private ServletOutputStream stream;
  private PrintWriter writer;

  /** The body as {@link #finish()} last returned it, while nothing was written after; else null. */
  private byte[] finished;

  public ServletResponseCapture(HttpServletResponse real, int limit) {
    super(real);
    this.real = real;
    this.limit = limit;
  }

  /** From now on an error the application sends is held here, not sent through the container. */
  public void holdErrors() {
    answeredSinceHold = false;
    holdErrors = true;
  }

  /**
   * True when, since {@link #holdErrors()}, the application set a status, sent an error or wrote to
   * the body: it answered the request.
   */
  public boolean answeredSinceHold() {
    return answeredSinceHold;
  }

  /** True when the application sent an error that was held ({@link #holdErrors()}). */
  public boolean errorHeld() {
    return holdErrors && errorSent;
  }

  /**
   * Detaches this response from the real one, which the filter has answered: status and headers are
   * kept here from now on, starting from the real response's; with {@code resetBody} the body held
   * so far is dropped.
   */
  public void detach(boolean resetBody) {
    if (detached != null) {
      return;
    }
    Detached d = new Detached();
    d.status = real.getStatus();
    d.contentType = real.getContentType();
    d.characterEncoding = real.getCharacterEncoding();
    for (String name : real.getHeaderNames()) {
      if (d.names().contains(name.toLowerCase(java.util.Locale.ROOT))
          || "Content-Type".equalsIgnoreCase(name)) {
        continue;
      }
      for (String value : real.getHeaders(name)) {
        d.headers.add(Map.entry(name, value));
      }
    }
    if (resetBody) {
      if (writer != null) {
        writer.flush();
      }
      buffer.reset();
      finished = null;
    }
    errorSent = false;
    holdErrors = true;
    detached = d;
  }

  /**
   * The headers of a detached response ({@code Content-Type} first), or {@code null} while it is
   * attached to the real response (whose headers are then the response's).
   */
  public List<Map.Entry<String, String>> detachedHeaders() {
    Detached d = detached;
    if (d == null) {
      return null;
    }
    List<Map.Entry<String, String>> out = new ArrayList<>(d.headers.size() + 1);
    if (d.contentType != null) {
      out.add(Map.entry("Content-Type", d.contentType));
    }
    out.addAll(d.headers);
    return out;
  }

  /**
   * True when the response is a stream ({@code text/event-stream}, {@code application/x-ndjson},
   * {@code application/stream+json}): it goes to the client as it is written, each flush at once.
   */
  public boolean streamed() {
    return streamed;
  }

  /** Whether {@code contentType} is that of a streaming response. */
  public static boolean isStreaming(String contentType) {
    if (contentType == null) {
      return false;
    }
    String type = contentType.toLowerCase(java.util.Locale.ROOT);
    int semicolon = type.indexOf(';');
    type = (semicolon < 0 ? type : type.substring(0, semicolon)).strip();
    return type.equals("text/event-stream")
        || type.equals("application/x-ndjson")
        || type.equals("application/stream+json")
        || type.equals("application/jsonl");
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
    answeredSinceHold = true;
    if (!streamChecked && passThrough == null && detached == null) {
      streamChecked = true; // the first write: the content type is set by now
      streamed = isStreaming(getContentType());
    }
    if (streamed && passThrough == null) {
      // a stream flows to the client as it is written, never held
      passThrough = real.getOutputStream();
      buffer.writeTo(passThrough);
      buffer.reset();
    }
    if (passThrough == null && buffer.size() + len > limit) {
      overflowed = true;
      if (detached != null) {
        buffer.reset(); // the client was answered: nothing more goes to it, nor is recorded
        return;
      }
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
              ServletResponseCapture.this.write(one, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              ServletResponseCapture.this.write(b, off, len);
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
              ServletResponseCapture.this.write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              ServletResponseCapture.this.write(b, off, len);
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
  public void setStatus(int sc) {
    answeredSinceHold = true;
    Detached d = detached;
    if (d != null) {
      d.status = sc;
    } else {
      super.setStatus(sc);
    }
  }

  @Override
  public int getStatus() {
    Detached d = detached;
    return d != null ? d.status : super.getStatus();
  }

  @Override
  public void setContentType(String type) {
    Detached d = detached;
    if (d != null) {
      d.contentType = type;
    } else {
      super.setContentType(type);
    }
  }

  @Override
  public String getContentType() {
    Detached d = detached;
    return d != null ? d.contentType : super.getContentType();
  }

  @Override
  public void setDateHeader(String name, long date) {
    if (detached != null) {
      setHeader(
          name,
          java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
              java.time.Instant.ofEpochMilli(date).atZone(java.time.ZoneOffset.UTC)));
    } else {
      super.setDateHeader(name, date);
    }
  }

  @Override
  public void addDateHeader(String name, long date) {
    if (detached != null) {
      addHeader(
          name,
          java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
              java.time.Instant.ofEpochMilli(date).atZone(java.time.ZoneOffset.UTC)));
    } else {
      super.addDateHeader(name, date);
    }
  }

  @Override
  public boolean containsHeader(String name) {
    Detached d = detached;
    return d != null ? d.get(name) != null : super.containsHeader(name);
  }

  @Override
  public String getHeader(String name) {
    Detached d = detached;
    return d != null ? d.get(name) : super.getHeader(name);
  }

  @Override
  public Collection<String> getHeaders(String name) {
    Detached d = detached;
    if (d == null) {
      return super.getHeaders(name);
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> h : d.headers) {
      if (h.getKey().equalsIgnoreCase(name)) {
        out.add(h.getValue());
      }
    }
    return out;
  }

  @Override
  public Collection<String> getHeaderNames() {
    Detached d = detached;
    return d != null ? d.names() : super.getHeaderNames();
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
    Detached d = detached;
    if (d != null) {
      d.status = SC_OK;
      d.contentType = null;
      d.headers.clear();
    } else {
      real.reset();
    }
  }

  @Override
  public String getCharacterEncoding() {
    Detached d = detached;
    return d != null ? d.characterEncoding : super.getCharacterEncoding();
  }

  @Override
  public void setCharacterEncoding(String charset) {
    Detached d = detached;
    if (d != null) {
      d.characterEncoding = charset;
    } else {
      super.setCharacterEncoding(charset);
    }
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
    if ("Content-Length".equalsIgnoreCase(name)) {
      return;
    }
    Detached d = detached;
    if (d == null) {
      super.setHeader(name, value);
    } else if ("Content-Type".equalsIgnoreCase(name)) {
      d.contentType = value;
    } else {
      d.headers.removeIf(h -> h.getKey().equalsIgnoreCase(name));
      if (value != null) {
        d.headers.add(Map.entry(name, value));
      }
    }
  }

  @Override
  public void addHeader(String name, String value) {
    if ("Content-Length".equalsIgnoreCase(name)) {
      return;
    }
    Detached d = detached;
    if (d == null) {
      super.addHeader(name, value);
    } else if ("Content-Type".equalsIgnoreCase(name)) {
      d.contentType = value;
    } else if (value != null) {
      d.headers.add(Map.entry(name, value));
    }
  }

  @Override
  public void setIntHeader(String name, int value) {
    if (detached != null) {
      setHeader(name, Integer.toString(value));
    } else if (!"Content-Length".equalsIgnoreCase(name)) {
      super.setIntHeader(name, value);
    }
  }

  @Override
  public void addIntHeader(String name, int value) {
    if (detached != null) {
      addHeader(name, Integer.toString(value));
    } else if (!"Content-Length".equalsIgnoreCase(name)) {
      super.addIntHeader(name, value);
    }
  }

  @Override
  public void sendError(int sc, String msg) throws IOException {
    errorSent = true;
    answeredSinceHold = true;
    buffer.reset();
    finished = null;
    if (holdErrors) {
      setStatus(sc);
    } else {
      real.sendError(sc, msg);
    }
  }

  @Override
  public void sendError(int sc) throws IOException {
    errorSent = true;
    answeredSinceHold = true;
    buffer.reset();
    finished = null;
    if (holdErrors) {
      setStatus(sc);
    } else {
      real.sendError(sc);
    }
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

  /** Status and headers of a response detached from the real one. */
  private static final class Detached {
    int status;
    String contentType;
    String characterEncoding;
    final List<Map.Entry<String, String>> headers =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    String get(String name) {
      if ("Content-Type".equalsIgnoreCase(name)) {
        return contentType;
      }
      for (Map.Entry<String, String> h : headers) {
        if (h.getKey().equalsIgnoreCase(name)) {
          return h.getValue();
        }
      }
      return null;
    }

    List<String> names() {
      List<String> out = new ArrayList<>();
      for (Map.Entry<String, String> h : headers) {
        String n = h.getKey().toLowerCase(java.util.Locale.ROOT);
        if (!out.contains(n)) {
          out.add(n);
        }
      }
      return out;
    }
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
