package dev.idempotent.web;

import dev.idempotent.http.ApplicationResponse;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.HttpProblem;
import dev.idempotent.http.HttpResult;
import dev.idempotent.http.RecordedResponse;
import dev.idempotent.http.internal.RuleProperties;
import dev.idempotent.web.internal.BufferedRequest;
import dev.idempotent.web.internal.ServletResponseCapture;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servlet adapter of {@link HttpIdempotency}: a filter for any Servlet 6 container (Tomcat,
 * Jetty) and Spring MVC. It turns a request into what the protocol asks for (method, path within
 * the application, headers, caller, body), runs the chain into a response it holds, and writes the
 * protocol's answer back; the rules are the protocol's.
 *
 * <pre>{@code
 * HttpIdempotency protocol = HttpIdempotency.builder()
 *     .idempotency(Idempotency.install(config))
 *     .rule(IdempotencyRule.builder("orders-api").paths("/api/*").key(Key.REQUIRED).build())
 *     .rule(IdempotencyRule.submitTokens("checkout").paths("/orders").build())
 *     .build();
 * servletContext.addFilter("idempotency", IdempotencyFilter.builder(protocol).build())
 *     .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
 * }</pre>
 *
 * <h2>Asynchronous requests</h2>
 *
 * A protected request may go asynchronous (Spring MVC handlers returning {@code Callable}, {@code
 * DeferredResult}, {@code CompletableFuture} or a {@code Mono}): the claim is held while it runs,
 * and the response is recorded and sent when the request completes, on the filter's last pass (an
 * {@code ASYNC} dispatch) or when the application calls {@code AsyncContext.complete()}. Register
 * the filter with async support and for the {@code ASYNC} dispatcher as well as {@code REQUEST}; an
 * asynchronous request that fails is not recorded and its key is released. One that times out keeps
 * its key while its work may still run: it is answered 503 {@code outcome-pending} (or with the
 * application's own timeout answer, unrecorded), and the key is settled by the work's end where the
 * filter sees it, else at the rule's max-hold. A streaming response ({@code text/event-stream},
 * NDJSON) goes to the client as it is flushed and completes its key unreplayable. Forward, include
 * and error dispatches pass through untouched.
 *
 * <p>Immutable and thread-safe once built; the no-argument constructor (for {@code web.xml} and
 * containers) reads the protocol's settings from the filter's init-parameters over the {@code
 * idempotent.web.*} properties in {@link #init}.
 */
public final class IdempotencyFilter implements Filter {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.web");
  private static final String ATTRIBUTE = IdempotencyFilter.class.getName();
  private static final String EXCHANGE = IdempotencyFilter.class.getName() + ".exchange";

  /** The caller is the principal's name; {@code null} (anonymous) without one. */
  public static final Function<HttpServletRequest, String> PRINCIPAL_NAME =
      request -> {
        Principal p = request.getUserPrincipal();
        return p == null ? null : p.getName();
      };

  /**
   * A submit token is bound to the principal's name, else to the HTTP session; {@code null} without
   * either.
   */
  public static final Function<HttpServletRequest, String> USER_OR_SESSION =
      request -> {
        Principal p = request.getUserPrincipal();
        if (p != null) {
          return "user:" + p.getName();
        }
        HttpSession session = request.getSession(false);
        return session == null ? null : "session:" + session.getId();
      };

  private volatile HttpIdempotency protocol;
  private final Function<HttpServletRequest, String> callerIdentity;
  private final Function<HttpServletRequest, String> submitSubject;

  /**
   * For {@code web.xml} and containers: the protocol is read in {@link #init} from the
   * init-parameters over the {@code idempotent.web.*} properties.
   */
  public IdempotencyFilter() {
    this.callerIdentity = PRINCIPAL_NAME;
    this.submitSubject = USER_OR_SESSION;
  }

  private IdempotencyFilter(Builder b) {
    this.protocol = b.protocol;
    this.callerIdentity = b.callerIdentity;
    this.submitSubject = b.submitSubject;
  }

  /** A filter over {@code protocol}. */
  public static Builder builder(HttpIdempotency protocol) {
    return new Builder(Objects.requireNonNull(protocol, "protocol must not be null"));
  }

  /**
   * The idempotency filter {@code request} passed (the first one, when there are several), for a
   * servlet that issues submit tokens; {@code null} when no idempotency filter saw the request.
   */
  public static IdempotencyFilter of(ServletRequest request) {
    Object f = request.getAttribute(ATTRIBUTE);
    return f instanceof IdempotencyFilter filter ? filter : null;
  }

  /** The protocol this filter adapts. */
  public HttpIdempotency protocol() {
    HttpIdempotency p = protocol;
    if (p == null) {
      synchronized (this) {
        p = protocol;
        if (p == null) {
          p = HttpIdempotency.fromProperties();
          protocol = p;
        }
      }
    }
    return p;
  }

  /**
   * A fresh submit token for the form that posts to {@code path}, bound to the subject of {@code
   * request} (by default the principal's name, else the HTTP session, which is created if there is
   * none). Render it in the rule's submit-token field (default {@code _submit_token}).
   *
   * @param path the path the form posts to, within the application, e.g. {@code /orders}
   * @throws IllegalArgumentException when no submit-token rule covers {@code path}
   */
  public String issueSubmitToken(HttpServletRequest request, String path) {
    if (submitSubject == USER_OR_SESSION && request.getUserPrincipal() == null) {
      request.getSession(true);
    }
    String subject = submitSubject.apply(request);
    if (subject == null) {
      throw new IllegalStateException(
          "the submit subject of this request is null: the submitSubject function must name the"
              + " user or session a token is issued to");
    }
    return protocol().issueSubmitToken(path, subject);
  }

  /**
   * A filter made with the no-argument constructor reads its protocol here: the {@code
   * idempotent.web.*} properties, with the init-parameters (the same names without the prefix)
   * taking precedence. A filter made by the builder keeps its protocol.
   */
  @Override
  public void init(FilterConfig config) throws ServletException {
    if (protocol != null) {
      return;
    }
    Map<String, String> settings =
        new LinkedHashMap<>(RuleProperties.fromProperties(HttpIdempotency.PROPERTY_PREFIX));
    for (String name : Collections.list(config.getInitParameterNames())) {
      settings.put(name, config.getInitParameter(name));
    }
    try {
      protocol = HttpIdempotency.builder().settings(settings).build();
    } catch (IllegalArgumentException e) {
      throw new ServletException(
          "idempotency filter '" + config.getFilterName() + "': " + e.getMessage(), e);
    }
  }

  @Override
  public void destroy() {}

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (!(req instanceof HttpServletRequest request)
        || !(res instanceof HttpServletResponse response)) {
      chain.doFilter(req, res);
      return;
    }
    if (request.getAttribute(ATTRIBUTE) == null) {
      request.setAttribute(ATTRIBUTE, this);
    }
    if ((request.getDispatcherType() == DispatcherType.ASYNC
            || request.getDispatcherType() == DispatcherType.ERROR)
        && request.getAttribute(EXCHANGE) instanceof Exchange exchange
        && exchange.filter == this) {
      exchange.asyncDispatch(request, response, chain);
      return;
    }
    if (request.getDispatcherType() != DispatcherType.REQUEST) {
      chain.doFilter(request, response);
      return;
    }
    HttpIdempotency p = protocol();
    String path = pathOf(request);
    HttpIdempotency.Admission admission =
        p.admit(request.getMethod(), path, name -> headers(request, name), caller(request));
    if (admission.passesThrough()) {
      chain.doFilter(request, response);
      return;
    }
    if (admission.problem() != null) {
      answer(p, response, HttpResult.problem(admission.problem()));
      return;
    }
    BufferedRequest buffered;
    try {
      buffered = BufferedRequest.read(request, admission.rule().maxRequestBodyBytes());
    } catch (BufferedRequest.TooLarge e) {
      answer(p, response, HttpResult.problem(HttpProblem.BODY_TOO_LARGE));
      return;
    }
    Exchange exchange = new Exchange(this, buffered, response, admission);
    CompletionStage<HttpResult> result =
        p.execute(
            admission,
            request.getQueryString(),
            request.getContentType(),
            buffered.body(),
            () -> submitSubject.apply(request),
            () -> exchange.run(chain));
    CompletableFuture<HttpResult> done = result.toCompletableFuture();
    if (done.isDone()) {
      exchange.send(done);
    } else {
      done.whenComplete((r, e) -> exchange.sendAfterAsync(done));
    }
  }

  private String caller(HttpServletRequest request) {
    return callerIdentity.apply(request);
  }

  private static List<String> headers(HttpServletRequest request, String name) {
    Enumeration<String> values = request.getHeaders(name);
    if (values == null || !values.hasMoreElements()) {
      return List.of();
    }
    String first = values.nextElement();
    if (!values.hasMoreElements()) {
      return Collections.singletonList(first); // a header may be null in a container's list
    }
    List<String> all = new ArrayList<>(4);
    all.add(first);
    while (values.hasMoreElements()) {
      all.add(values.nextElement());
    }
    return all;
  }

  static String pathOf(HttpServletRequest request) {
    String servletPath = request.getServletPath();
    String info = request.getPathInfo();
    String path =
        info == null
            ? (servletPath == null ? "" : servletPath)
            : servletPath == null ? info : servletPath + info;
    if (path.isEmpty()) {
      String uri = request.getRequestURI();
      String ctx = request.getContextPath();
      path = uri.startsWith(ctx) ? uri.substring(ctx.length()) : uri;
    }
    return path.isEmpty() ? "/" : path;
  }

  /**
   * Sends a replay or a problem: its status, its headers and its body. The response keeps the
   * headers it has ({@code resetBuffer} clears the body only), so setting the answer's own headers
   * ({@link HttpResult#answerHeaders}) on it leaves it with the protocol's final list ({@link
   * HttpResult#headers}): the response's headers of the names the answer sets replaced, the others
   * kept.
   */
  private static void answer(
      HttpIdempotency protocol, HttpServletResponse response, HttpResult result)
      throws IOException {
    HttpProblem p = result.problem();
    if (p != null && response.isCommitted()) {
      LOG.warn("could not answer {} {}: the response was already committed", p.status(), p.title());
      return;
    }
    List<Map.Entry<String, String>> headers = result.answerHeaders(protocol.problemTypeBase());
    response.resetBuffer();
    if (p != null) {
      response.setStatus(p.status());
      copy(headers, response);
      response.getOutputStream().write(p.body(protocol.problemTypeBase()));
      return;
    }
    RecordedResponse recorded = result.replayed();
    response.setStatus(recorded.status());
    copy(headers, response);
    if (recorded.bodyLength() > 0) {
      recorded.writeBodyTo(response.getOutputStream());
    }
  }

  /** Copies a header list onto {@code response}: each name's first value set, the rest added. */
  private static void copy(List<Map.Entry<String, String>> headers, HttpServletResponse response) {
    for (int i = 0; i < headers.size(); i++) {
      Map.Entry<String, String> h = headers.get(i);
      if (namedBefore(headers, i, h.getKey())) {
        response.addHeader(h.getKey(), h.getValue());
      } else {
        response.setHeader(h.getKey(), h.getValue());
      }
    }
  }

  /** Whether a header before index {@code end} of {@code headers} has {@code name}. */
  private static boolean namedBefore(
      List<Map.Entry<String, String>> headers, int end, String name) {
    for (int i = 0; i < end; i++) {
      if (headers.get(i).getKey().equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  /** Every header of {@code response}, in order, {@code Content-Type} first when there is one. */
  private static List<Map.Entry<String, String>> headersOf(HttpServletResponse response) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    String contentType = response.getContentType();
    if (contentType != null) {
      out.add(Map.entry("Content-Type", contentType));
    }
    // a container may name a header once per value, in any case: each name once
    List<String> seen = new ArrayList<>(8);
    for (String name : response.getHeaderNames()) {
      if (name.equalsIgnoreCase("Content-Type") || containsIgnoringCase(seen, name)) {
        continue;
      }
      seen.add(name);
      for (String value : response.getHeaders(name)) {
        out.add(Map.entry(name, value));
      }
    }
    return out;
  }

  private static boolean containsIgnoringCase(List<String> names, String name) {
    for (String n : names) {
      if (n.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * One protected request: runs the chain into a capturing response and sends the answer.
   *
   * <p>An asynchronous request that times out keeps its claim (its work may still run, and a retry
   * must not run it again). Its client is answered once: by the application's own timeout handling
   * when that completes or dispatches the request with a response that is not a server error
   * (passed on, never recorded), else by the filter with 503 {@link HttpProblem#OUTCOME_PENDING}.
   * The key is then settled by the work's end when the filter sees it (the application calls {@code
   * complete()} on its context: what the work wrote since is recorded), or else at the rule's
   * max-hold after the request started, as an ambiguous failure (its on-ambiguous-failure).
   */
  private static final class Exchange implements AsyncListener, BufferedRequest.AsyncHooks {
    private final IdempotencyFilter filter;
    private final BufferedRequest request;
    private final HttpServletResponse response;
    private final HttpIdempotency.Admission admission;
    private ServletResponseCapture capture;

    private final long startedNanos = System.nanoTime();

    /** The container timed the asynchronous request out. */
    private volatile boolean timedOut;

    /** After the timeout, the application dispatched or completed the request. */
    private volatile boolean handledAfterTimeout;

    /** After the timeout, the client was answered (by the filter or the application). */
    private boolean answered;

    /** Marks the timeout before the application's listeners run. */
    private final AsyncListener first =
        new AsyncListener() {
          @Override
          public void onTimeout(AsyncEvent event) {
            markTimedOut();
          }

          @Override
          public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
          }

          @Override
          public void onComplete(AsyncEvent event) {}

          @Override
          public void onError(AsyncEvent event) {}
        };

    /**
     * Completed with the response when an asynchronous request completes; it may complete before
     * the dispatch that started it returns (the application's thread calls {@code complete()}
     * first), and the container completes the request only after that dispatch returns.
     */
    private final CompletableFuture<ApplicationResponse> asyncResponse = new CompletableFuture<>();

    Exchange(
        IdempotencyFilter filter,
        BufferedRequest request,
        HttpServletResponse response,
        HttpIdempotency.Admission admission) {
      this.filter = filter;
      this.request = request;
      this.response = response;
      this.admission = admission;
    }

    /** The protocol's application: the chain, into the capturing response. */
    CompletionStage<ApplicationResponse> run(FilterChain chain) {
      capture = new ServletResponseCapture(response, admission.rule().maxResponseBodyBytes());
      request.onAsync(capture, this);
      try {
        chain.doFilter(request, capture);
      } catch (IOException | ServletException e) {
        throw new CompletionException(e);
      }
      if (asyncResponse.isDone()) {
        return asyncResponse; // completed by the application while the chain ran
      }
      if (request.isAsyncStarted()) {
        request.setAttribute(EXCHANGE, this);
        request.getAsyncContext().addListener(this);
        return asyncResponse;
      }
      return CompletableFuture.completedFuture(captured());
    }

    /**
     * The filter's pass of an {@code ASYNC} dispatch of this request, or of the {@code ERROR}
     * dispatch of an asynchronous request that failed or timed out.
     */
    void asyncDispatch(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
        throws IOException, ServletException {
      try {
        chain.doFilter(req, res);
      } catch (IOException | ServletException | RuntimeException | Error e) {
        if (!timedOut) {
          asyncResponse.completeExceptionally(e);
        }
        throw e;
      }
      if (timedOut) {
        if (!req.isAsyncStarted()) {
          answerAfterTimeout(); // the work goes on: its key stays claimed
        }
        return;
      }
      if (!req.isAsyncStarted()) {
        if (asyncResponse.isDone()) {
          capture.sendBuffered(); // it failed before (an error event): send what it answered
        } else {
          asyncResponse.complete(captured());
        }
      }
    }

    @Override
    public AsyncListener first() {
      return first;
    }

    /** The application calls {@code AsyncContext.complete()}: record and send before it is. */
    @Override
    public boolean completing() {
      if (!timedOut) {
        asyncResponse.complete(captured());
        return true;
      }
      synchronized (this) {
        if (!answered) {
          // the application's own timeout handling completes the request
          handledAfterTimeout = true;
          answerAfterTimeout();
          return true;
        }
      }
      // the work ends after its request was answered: what it wrote since is its outcome
      asyncResponse.complete(captured());
      return false;
    }

    @Override
    public void dispatching() {
      if (timedOut) {
        handledAfterTimeout = true;
      }
    }

    /**
     * Answers the client of a timed-out request once: the application's response, unrecorded, when
     * it answered since the timeout with anything but a server error, else 503 outcome-pending;
     * then detaches the capture, so the work that goes on writes there only.
     */
    private synchronized void answerAfterTimeout() {
      if (answered) {
        return;
      }
      answered = true;
      try {
        if (!capture.answeredSinceHold()
            || capture.errorHeld()
            || capture.passedThrough()
            || capture.getStatus() >= 500) {
          capture.detach(false);
          answerPending();
        } else {
          capture.sendBuffered();
          capture.detach(true);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not answer a timed-out asynchronous request: {}", e.toString());
      }
    }

    private void answerPending() throws IOException {
      if (!response.isCommitted()) {
        response.reset();
      }
      HttpIdempotency protocol = filter.protocol();
      answer(protocol, response, protocol.outcomePending(admission.rule()));
    }

    private synchronized void markTimedOut() {
      if (timedOut) {
        return;
      }
      timedOut = true;
      capture.holdErrors();
      settleAtMaxHold();
    }

    /**
     * The bound of a claim whose work never signals its end: at the rule's max-hold after the
     * request started (the instance's by default), its outcome still unknown, the key is settled as
     * an ambiguous failure, as the rule's {@code on-ambiguous-failure} says (released by default).
     */
    private void settleAtMaxHold() {
      Duration maxHold = admission.rule().maxHold();
      if (maxHold == null) {
        maxHold = filter.protocol().idempotency().config().maxHold();
      }
      Duration bound = maxHold;
      long left = Math.max(0, maxHold.toNanos() - (System.nanoTime() - startedNanos));
      CompletableFuture.delayedExecutor(left, TimeUnit.NANOSECONDS)
          .execute(
              () -> {
                if (asyncResponse.complete(
                    ApplicationResponse.unrecordable(
                        HttpServletResponse.SC_GATEWAY_TIMEOUT,
                        "a timed-out request whose work did not signal its end"))) {
                  LOG.warn(
                      "the work of a timed-out asynchronous request to rule '{}' did not signal its"
                          + " end within the max-hold ({}): its key is settled as an ambiguous"
                          + " failure (on-ambiguous-failure={})",
                      admission.rule().scope(),
                      bound,
                      admission.rule().settings().onAmbiguousFailure());
                }
              });
    }

    private ApplicationResponse captured() {
      byte[] body = capture.finish();
      int status = capture.getStatus();
      if (capture.streamed()) {
        return ApplicationResponse.streamed(status);
      }
      if (capture.overflowed()) {
        return ApplicationResponse.unrecordable(
            status, "larger than " + admission.rule().maxResponseBodyBytes() + " bytes");
      }
      if (capture.passedThrough()) {
        return ApplicationResponse.unrecordable(status, "an error sent through the container");
      }
      return ApplicationResponse.of(status, headers(), body);
    }

    private List<Map.Entry<String, String>> headers() {
      List<Map.Entry<String, String>> detached = capture.detachedHeaders();
      return detached != null ? detached : headersOf(response);
    }

    /** Sends a result that is known at once (the request did not go asynchronous). */
    void send(CompletableFuture<HttpResult> done) throws IOException, ServletException {
      HttpResult result;
      try {
        result = done.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServletException(e);
      } catch (ExecutionException e) {
        Throwable cause =
            e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
        if (cause instanceof IOException io) {
          throw io;
        }
        if (cause instanceof ServletException se) {
          throw se;
        }
        if (cause instanceof RuntimeException re) {
          throw re;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new ServletException(cause);
      }
      write(result);
    }

    /** Sends the result of a request that went asynchronous, on the thread that completed it. */
    void sendAfterAsync(CompletableFuture<HttpResult> done) {
      if (timedOut) {
        return; // the client was answered at the timeout; this settled the key
      }
      if (done.isCompletedExceptionally()) {
        return; // the container answers the failure of the asynchronous request
      }
      try {
        write(done.join());
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not send the response of an asynchronous request: {}", e.toString());
      }
    }

    private void write(HttpResult result) throws IOException {
      if (result.kind() == HttpResult.Kind.SEND_CAPTURED) {
        capture.sendBuffered();
      } else {
        answer(filter.protocol(), response, result);
      }
    }

    @Override
    public void onComplete(AsyncEvent event) {
      if (!timedOut) {
        asyncResponse.complete(captured()); // no effect when the last dispatch completed it first
      }
    }

    /**
     * The last listener's view of a timeout: unless the application dispatched or completed the
     * request, the filter answers 503 outcome-pending and completes it. The claim is kept.
     */
    @Override
    public void onTimeout(AsyncEvent event) {
      markTimedOut();
      if (handledAfterTimeout) {
        return;
      }
      synchronized (this) {
        if (answered) {
          return;
        }
        answerAfterTimeout();
      }
      try {
        event.getAsyncContext().complete();
      } catch (IllegalStateException e) {
        LOG.debug("a timed-out asynchronous request was completed already: {}", e.toString());
      }
    }

    @Override
    public void onError(AsyncEvent event) {
      if (timedOut) {
        return; // the work may go on: its key stays claimed
      }
      Throwable t = event.getThrowable();
      asyncResponse.completeExceptionally(
          t != null ? t : new IllegalStateException("the asynchronous request failed"));
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      event.getAsyncContext().addListener(this);
    }
  }

  /** A filter over a protocol, with the servlet-side functions it needs. */
  public static final class Builder {
    private final HttpIdempotency protocol;
    private Function<HttpServletRequest, String> callerIdentity = PRINCIPAL_NAME;
    private Function<HttpServletRequest, String> submitSubject = USER_OR_SESSION;

    private Builder(HttpIdempotency protocol) {
      this.protocol = protocol;
    }

    /**
     * Who the caller is, part of every record's key so callers cannot replay each other's responses
     * (default {@link #PRINCIPAL_NAME}; {@code null} for an anonymous caller). For example an
     * API-key header or a tenant.
     */
    public Builder callerIdentity(Function<HttpServletRequest, String> identity) {
      this.callerIdentity = Objects.requireNonNull(identity, "callerIdentity must not be null");
      return this;
    }

    /**
     * Whom a submit token is bound to (default {@link #USER_OR_SESSION}; {@code null}, which no
     * token matches, when there is neither). Called when issuing and when checking a token.
     */
    public Builder submitSubject(Function<HttpServletRequest, String> subject) {
      this.submitSubject = Objects.requireNonNull(subject, "submitSubject must not be null");
      return this;
    }

    public IdempotencyFilter build() {
      return new IdempotencyFilter(this);
    }
  }
}
