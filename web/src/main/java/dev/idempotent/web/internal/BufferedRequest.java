package dev.idempotent.web.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The request as the application sees it behind the filter: the body the filter buffered is read
 * again from {@link #getInputStream()} or {@link #getReader()}, and the parameters of a {@code
 * application/x-www-form-urlencoded} body (with the query string's) from {@link
 * #getParameter(String)}. Asynchronous processing starts with the capturing response, so what the
 * application writes later is captured and recorded when the request completes.
 */
public final class BufferedRequest extends HttpServletRequestWrapper {
  private final byte[] body;

  /** The parameters; for a request that is not a form, read from the container when first asked. */
  private Map<String, String[]> parameters;

  private boolean streamUsed;
  private boolean readerUsed;

  private BufferedRequest(
      HttpServletRequest request, byte[] body, Map<String, String[]> parameters) {
    super(request);
    this.body = body;
    this.parameters = parameters;
  }

  /** Thrown when the body is larger than the limit. */
  public static final class TooLarge extends Exception {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body too large", null, false, false);
    }
  }

  /**
   * Reads the body of {@code request} (at most {@code maxBytes}) and wraps the request around it.
   *
   * @throws TooLarge when the body (or its declared {@code Content-Length}) is longer than {@code
   *     maxBytes}
   */
  public static BufferedRequest read(HttpServletRequest request, int maxBytes)
      throws IOException, TooLarge {
    long declared = request.getContentLengthLong();
    if (declared > maxBytes) {
      throw new TooLarge();
    }
    byte[] body = readAtMost(request.getInputStream(), declared, maxBytes);
    Map<String, String[]> parameters;
    if (isForm(request.getContentType())) {
      if (body.length == 0) {
        // something before this filter read the form already: the container holds its parameters
        parameters = new LinkedHashMap<>(request.getParameterMap());
      } else {
        parameters = new LinkedHashMap<>();
        Charset cs = charset(request.getCharacterEncoding());
        addPairs(parameters, request.getQueryString(), StandardCharsets.UTF_8);
        addPairs(parameters, new String(body, StandardCharsets.ISO_8859_1), cs);
      }
    } else {
      // the query string's, read from the container only if the application asks (parsing them
      // costs every JSON request otherwise)
      return new BufferedRequest(request, body, null);
    }
    return new BufferedRequest(request, body, Collections.unmodifiableMap(parameters));
  }

  /** The buffered body bytes (not a copy: do not change them). */
  public byte[] body() {
    return body;
  }

  /**
   * A digest-friendly view of the form parameters, when the body had been read before the filter.
   */
  public Map<String, String[]> formParameters() {
    return isForm(getContentType()) && body.length == 0 ? parameters() : Map.of();
  }

  /**
   * The body, at most {@code maxBytes}. With a declared length (at most {@code maxBytes}) it is
   * read into one array of that length, returned as it is when the stream ends there (the usual
   * case: no scratch buffer, no copy); a body that goes on past its declared length is read on, as
   * one without.
   */
  private static byte[] readAtMost(InputStream in, long declared, int maxBytes)
      throws IOException, TooLarge {
    byte[] buf;
    int n = 0;
    if (declared >= 0) {
      buf = new byte[(int) declared];
      while (n < buf.length) {
        int r = in.read(buf, n, buf.length - n);
        if (r < 0) {
          return java.util.Arrays.copyOf(buf, n);
        }
        n += r;
      }
      int next = in.read();
      if (next < 0) {
        return buf;
      }
      if (n + 1 > maxBytes) {
        throw new TooLarge();
      }
      buf =
          java.util.Arrays.copyOf(buf, (int) Math.min(Math.max(2L * n, 8192), (long) maxBytes + 1));
      buf[n++] = (byte) next;
    } else {
      buf = new byte[Math.min(8192, maxBytes + 1)];
    }
    while (true) {
      if (n == buf.length) {
        if (buf.length > maxBytes) {
          throw new TooLarge();
        }
        buf =
            java.util.Arrays.copyOf(
                buf, (int) Math.min((long) buf.length * 2, (long) maxBytes + 1));
      }
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        return java.util.Arrays.copyOf(buf, n);
      }
      n += r;
      if (n > maxBytes) {
        throw new TooLarge();
      }
    }
  }

  static boolean isForm(String contentType) {
    return contentType != null
        && contentType
            .toLowerCase(java.util.Locale.ROOT)
            .startsWith("application/x-www-form-urlencoded");
  }

  private static Charset charset(String name) {
    if (name == null) {
      return StandardCharsets.UTF_8;
    }
    try {
      return Charset.forName(name);
    } catch (RuntimeException e) {
      return StandardCharsets.UTF_8;
    }
  }

  private static void addPairs(Map<String, String[]> out, String text, Charset cs) {
    if (text == null || text.isEmpty()) {
      return;
    }
    for (String pair : text.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq), cs);
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1), cs);
      out.merge(
          name,
          new String[] {value},
          (a, b) -> {
            String[] c = java.util.Arrays.copyOf(a, a.length + 1);
            c[a.length] = b[0];
            return c;
          });
    }
  }

  private static String decode(String s, Charset cs) {
    try {
      // the body was read as ISO-8859-1, so each char is one byte: re-encode before
      // percent-decoding
      return URLDecoder.decode(new String(s.getBytes(StandardCharsets.ISO_8859_1), cs), cs);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }

  @Override
  public ServletInputStream getInputStream() {
    if (readerUsed) {
      throw new IllegalStateException("getReader() was already called for this request");
    }
    streamUsed = true;
    ByteArrayInputStream in = new ByteArrayInputStream(body);
    return new ServletInputStream() {
      @Override
      public int read() {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, len);
      }

      @Override
      public int available() {
        return in.available();
      }

      @Override
      public boolean isFinished() {
        return in.available() == 0;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new IllegalStateException(
            "non-blocking reads are not available behind the idempotency filter");
      }
    };
  }

  @Override
  public BufferedReader getReader() {
    if (streamUsed) {
      throw new IllegalStateException("getInputStream() was already called for this request");
    }
    readerUsed = true;
    return new BufferedReader(
        new InputStreamReader(
            new ByteArrayInputStream(body),
            getCharacterEncoding() == null
                ? StandardCharsets.ISO_8859_1
                : charset(getCharacterEncoding())));
  }

  @Override
  public int getContentLength() {
    return body.length;
  }

  @Override
  public long getContentLengthLong() {
    return body.length;
  }

  private Map<String, String[]> parameters() {
    Map<String, String[]> p = parameters;
    if (p == null) {
      p = Collections.unmodifiableMap(new LinkedHashMap<>(super.getParameterMap()));
      parameters = p;
    }
    return p;
  }

  @Override
  public String getParameter(String name) {
    String[] v = parameters().get(name);
    return v == null || v.length == 0 ? null : v[0];
  }

  @Override
  public Map<String, String[]> getParameterMap() {
    return parameters();
  }

  @Override
  public Enumeration<String> getParameterNames() {
    return Collections.enumeration(parameters().keySet());
  }

  @Override
  public String[] getParameterValues(String name) {
    String[] v = parameters().get(name);
    return v == null ? null : v.clone();
  }

  @Override
  public Collection<Part> getParts() throws IOException, ServletException {
    throw new IllegalStateException(
        "multipart parts are not available behind the idempotency filter (it buffers "
            + "the body): read getInputStream(), or leave this path out of the filter's paths");
  }

  @Override
  public Part getPart(String name) throws IOException, ServletException {
    return getParts().iterator().next();
  }

  /**
   * What the filter does around an asynchronous request the application starts: a listener added
   * before any of the application's own, and what to do when the application completes the request
   * itself ({@link AsyncContext#complete()} without a dispatch back through the filter) or
   * dispatches it.
   */
  public interface AsyncHooks {
    /** The listener to add when the application starts asynchronous processing, before its own. */
    jakarta.servlet.AsyncListener first();

    /**
     * The application calls {@code complete()}: runs before the container completes the request.
     *
     * @return whether the container's context is to be completed (false when it was already)
     */
    boolean completing();

    /** The application calls one of the {@code dispatch} methods. */
    void dispatching();
  }

  /** The response the application writes to, and the filter's hooks around asynchronous work. */
  public void onAsync(ServletResponse capture, AsyncHooks hooks) {
    this.capture = capture;
    this.hooks = hooks;
  }

  /**
   * Starts asynchronous processing with this request and the capturing response, so that what the
   * application writes later is captured too (the no-argument form would hand it the container's
   * response, past the capture).
   */
  @Override
  public AsyncContext startAsync() {
    if (capture == null) {
      return super.startAsync();
    }
    return startAsync(this, capture);
  }

  @Override
  public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
    AsyncContext started = super.startAsync(request, response);
    if (hooks == null) {
      return started;
    }
    started.addListener(hooks.first());
    wrapped = new CompletingAsyncContext(started, hooks, request, response);
    return wrapped;
  }

  /** The context the application started, with the filter's hooks. */
  @Override
  public AsyncContext getAsyncContext() {
    AsyncContext w = wrapped;
    return w != null ? w : super.getAsyncContext();
  }

  private volatile AsyncContext wrapped;

  private ServletResponse capture;
  private AsyncHooks hooks;

  /** Runs the filter's completion of the exchange before the container completes the request. */
  private static final class CompletingAsyncContext implements AsyncContext {
    private final AsyncContext context;
    private final AsyncHooks hooks;
    private final ServletRequest request;
    private final ServletResponse response;

    CompletingAsyncContext(
        AsyncContext context, AsyncHooks hooks, ServletRequest request, ServletResponse response) {
      this.context = context;
      this.hooks = hooks;
      this.request = request;
      this.response = response;
    }

    /** The request given to {@code startAsync}, still there after a timeout completed it. */
    @Override
    public ServletRequest getRequest() {
      return request;
    }

    /**
     * The response given to {@code startAsync} (the capturing one): the work that goes on after a
     * timeout writes its outcome there, although the container completed the request.
     */
    @Override
    public ServletResponse getResponse() {
      return response;
    }

    @Override
    public boolean hasOriginalRequestAndResponse() {
      return context.hasOriginalRequestAndResponse();
    }

    @Override
    public void dispatch() {
      hooks.dispatching();
      context.dispatch();
    }

    @Override
    public void dispatch(String path) {
      hooks.dispatching();
      context.dispatch(path);
    }

    @Override
    public void dispatch(jakarta.servlet.ServletContext servletContext, String path) {
      hooks.dispatching();
      context.dispatch(servletContext, path);
    }

    @Override
    public void complete() {
      boolean completeContainer = true;
      try {
        completeContainer = hooks.completing();
      } finally {
        if (completeContainer) {
          context.complete();
        }
      }
    }

    @Override
    public void start(Runnable run) {
      context.start(run);
    }

    @Override
    public void addListener(jakarta.servlet.AsyncListener listener) {
      context.addListener(listener);
    }

    @Override
    public void addListener(
        jakarta.servlet.AsyncListener listener,
        ServletRequest servletRequest,
        ServletResponse servletResponse) {
      context.addListener(listener, servletRequest, servletResponse);
    }

    @Override
    public <T extends jakarta.servlet.AsyncListener> T createListener(Class<T> clazz)
        throws jakarta.servlet.ServletException {
      return context.createListener(clazz);
    }

    @Override
    public void setTimeout(long timeout) {
      context.setTimeout(timeout);
    }

    @Override
    public long getTimeout() {
      return context.getTimeout();
    }
  }
}
