package dev.idempotent.benchmarks;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A servlet request and response as light as a container's recycled ones, for driving a filter or a
 * servlet without a server: only what a POST with a JSON body and its answer need is implemented;
 * any other call fails naming the method, so a benchmark never measures a silent default. One pair
 * per benchmark thread, reset before each call.
 */
public final class BenchExchange {
  /** The request side. */
  public final Request request = new Request();

  /** The response side. */
  public final Response response = new Response();

  /**
   * Resets both sides for a new POST of {@code body} to {@code path} with {@code idempotencyKey}.
   */
  public BenchExchange post(String path, String idempotencyKey, byte[] body) {
    request.recycle(path, idempotencyKey, body);
    response.recycle();
    return this;
  }

  private static <T> T unsupported(Class<T> type) {
    return type.cast(
        Proxy.newProxyInstance(
            BenchExchange.class.getClassLoader(),
            new Class<?>[] {type},
            (proxy, method, args) -> {
              throw new UnsupportedOperationException(
                  "the benchmark's "
                      + type.getSimpleName()
                      + " does not implement "
                      + method.getName()
                      + ": add it to "
                      + BenchExchange.class.getName());
            }));
  }

  /**
   * A POST request with a body, an optional {@code Idempotency-Key} header and request attributes.
   */
  public static final class Request extends HttpServletRequestWrapper {
    private final Map<String, Object> attributes = new HashMap<>();
    private String path;
    private String key;
    private byte[] body;
    private int position;
    private final ServletInputStream input =
        new ServletInputStream() {
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
          public int available() {
            return body.length - position;
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
            throw new UnsupportedOperationException("blocking reads only");
          }
        };

    Request() {
      super(unsupported(HttpServletRequest.class));
    }

    void recycle(String path, String key, byte[] body) {
      this.path = path;
      this.key = key;
      this.body = body;
      this.position = 0;
      attributes.clear();
    }

    @Override
    public String getMethod() {
      return "POST";
    }

    @Override
    public boolean isAsyncStarted() {
      return false;
    }

    @Override
    public String getRequestURI() {
      return path;
    }

    @Override
    public String getContextPath() {
      return "";
    }

    @Override
    public String getServletPath() {
      return path;
    }

    @Override
    public String getPathInfo() {
      return null;
    }

    @Override
    public String getQueryString() {
      return null;
    }

    @Override
    public DispatcherType getDispatcherType() {
      return DispatcherType.REQUEST;
    }

    @Override
    public String getHeader(String name) {
      return "Idempotency-Key".equalsIgnoreCase(name)
          ? key
          : "Content-Type".equalsIgnoreCase(name) ? getContentType() : null;
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
      String value = getHeader(name);
      return value == null
          ? Collections.emptyEnumeration()
          : Collections.enumeration(List.of(value));
    }

    @Override
    public String getContentType() {
      return "application/json";
    }

    @Override
    public String getCharacterEncoding() {
      return "UTF-8";
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }

    @Override
    public ServletInputStream getInputStream() {
      return input;
    }

    @Override
    public Map<String, String[]> getParameterMap() {
      return Map.of();
    }

    @Override
    public String getParameter(String name) {
      return null;
    }

    @Override
    public java.security.Principal getUserPrincipal() {
      return null;
    }

    @Override
    public Object getAttribute(String name) {
      return attributes.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
      attributes.put(name, value);
    }

    @Override
    public void removeAttribute(String name) {
      attributes.remove(name);
    }
  }

  /**
   * A response whose body goes into a container-like output buffer (copied in, then dropped as if
   * sent); status and headers are kept so that a benchmark can check what it got.
   */
  public static final class Response extends HttpServletResponseWrapper {
    private final List<String[]> headers = new ArrayList<>();
    private final byte[] sent = new byte[8192];
    private int status;
    private int sentLength;
    private long contentLength;
    private final ServletOutputStream output =
        new ServletOutputStream() {
          @Override
          public void write(int b) {
            sent[sentLength++ % sent.length] = (byte) b;
          }

          @Override
          public void write(byte[] b, int off, int len) {
            int copied = Math.min(len, sent.length - sentLength % sent.length);
            System.arraycopy(b, off, sent, sentLength % sent.length, copied);
            sentLength += len;
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setWriteListener(WriteListener listener) {
            throw new UnsupportedOperationException("blocking writes only");
          }
        };

    Response() {
      super(unsupported(HttpServletResponse.class));
    }

    void recycle() {
      headers.clear();
      status = 200;
      sentLength = 0;
      contentLength = -1;
    }

    /** The body bytes sent. */
    public int sentLength() {
      return sentLength;
    }

    /** The first byte of the body sent (enough to tell a response from a problem). */
    public byte firstByte() {
      return sent[0];
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
    public void setHeader(String name, String value) {
      headers.removeIf(h -> h[0].equalsIgnoreCase(name));
      headers.add(new String[] {name, value});
    }

    @Override
    public void addHeader(String name, String value) {
      headers.add(new String[] {name, value});
    }

    @Override
    public void setIntHeader(String name, int value) {
      setHeader(name, Integer.toString(value));
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
    public Collection<String> getHeaders(String name) {
      List<String> values = new ArrayList<>(1);
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          values.add(h[1]);
        }
      }
      return values;
    }

    @Override
    public Collection<String> getHeaderNames() {
      Collection<String> names = new LinkedHashSet<>();
      for (String[] h : headers) {
        names.add(h[0]);
      }
      return names;
    }

    @Override
    public boolean containsHeader(String name) {
      return getHeader(name) != null;
    }

    @Override
    public String getContentType() {
      return getHeader("Content-Type");
    }

    @Override
    public void setContentType(String type) {
      setHeader("Content-Type", type);
    }

    @Override
    public String getCharacterEncoding() {
      return "UTF-8";
    }

    @Override
    public void setCharacterEncoding(String charset) {
      // the benchmark's bodies are UTF-8 already
    }

    @Override
    public void setContentLength(int len) {
      contentLength = len;
    }

    @Override
    public void setContentLengthLong(long len) {
      contentLength = len;
    }

    @Override
    public ServletOutputStream getOutputStream() {
      return output;
    }

    @Override
    public boolean isCommitted() {
      return false;
    }

    @Override
    public void resetBuffer() {
      sentLength = 0;
    }

    @Override
    public void flushBuffer() {
      // nothing is sent for real
    }
  }
}
