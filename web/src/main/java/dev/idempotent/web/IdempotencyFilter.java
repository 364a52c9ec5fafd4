package dev.idempotent.web;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.SubmitTokenException;
import dev.idempotent.SubmitTokens;
import dev.idempotent.internal.Fingerprints;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.StoreSettings;
import dev.idempotent.web.internal.BufferedRequest;
import dev.idempotent.web.internal.CapturingResponse;
import dev.idempotent.web.internal.KeyHeader;
import dev.idempotent.web.internal.PathPatterns;
import dev.idempotent.web.internal.Problem;
import dev.idempotent.web.internal.RecordedResponse;
import dev.idempotent.web.internal.UnrecordedResponse;
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
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A servlet filter that makes unsafe HTTP requests idempotent: the {@code Idempotency-Key} header
 * of draft-ietf-httpapi-idempotency-key-header, with whole responses replayed, and one-time submit
 * tokens for HTML forms. It is an adapter like the woven aspect: it turns a request into a key, a
 * fingerprint and a body to run, and a recorded outcome back into a response; the protocol is the
 * core executor's.
 *
 * <pre>{@code
 * IdempotencyFilter filter = IdempotencyFilter.builder()
 *     .idempotency(Idempotency.install(config))
 *     .keyRequired("/api/*")
 *     .submitTokenPaths("/orders")
 *     .build();
 * }</pre>
 *
 * <h2>Requests with an {@code Idempotency-Key}</h2>
 *
 * Only requests whose method is one of {@link Builder#methods} (default {@code POST}, {@code
 * PATCH}) on one of {@link Builder#paths} are protected; others pass through untouched, and so do
 * forward, include, error and async dispatches (an error page rendered for a protected request is
 * not a request of its own).
 *
 * <ul>
 *   <li>The key is a structured-field string, quoted or bare; more than one header, an empty value,
 *       characters outside printable ASCII or more than 255 characters: <b>400</b>. No key on a
 *       {@link Builder#keyRequired} path: <b>400</b>; elsewhere the request passes through.
 *   <li>The record's scope is the method, the path and the caller's identity ({@link
 *       Builder#callerIdentity}, default the principal's name), so one caller's key never replays
 *       another caller's response.
 *   <li>The fingerprint covers the method, path, query, {@code Content-Type} and body: the same key
 *       with another request: <b>422</b>.
 *   <li>The first request runs once; its status, its replayable headers ({@link
 *       Builder#replayedHeaders}) and its body byte for byte are recorded for the ttl, and every
 *       repeat gets them again with {@code Idempotent-Replayed: true}. 2xx, 3xx and 4xx are
 *       recorded ({@link Builder#recordClientErrors}); 5xx, exceptions, responses sent with {@code
 *       sendError} and responses over {@link Builder#maxResponseBodyBytes} are sent but not
 *       recorded: the key is released and a retry runs.
 *   <li>A repeat while the first still runs: <b>409</b> with {@code Retry-After} ({@link
 *       Builder#retryAfter}, default 1 s), or with {@link OnInProgress#WAIT} it waits and gets the
 *       replay.
 *   <li>The store fails: <b>503</b> with {@code Retry-After} under the configuration's fail-closed
 *       policy, or the request runs unprotected under fail-open. A body over {@link
 *       Builder#maxRequestBodyBytes}: <b>413</b>.
 * </ul>
 *
 * <h2>Submit tokens</h2>
 *
 * On the {@link Builder#submitTokenPaths}, a request of a protected method must carry a token from
 * {@link #issueSubmitToken} in the form field {@code _submit_token} or the header {@code
 * Submit-Token}; see {@link SubmitTokens}. No token: <b>400</b>; a token not issued for this scene
 * and subject (forged, another user's, expired): the same <b>400</b> every time. Concurrent submits
 * run once (the others wait for it and get its response); 2xx and 3xx are recorded, and a repeat
 * gets the first response again (or, with {@link Builder#onDuplicateSubmit} {@code REJECT},
 * <b>409</b>); 4xx, 5xx and exceptions are not recorded, so the user can correct the form and
 * submit the same token again. An {@code Idempotency-Key} on these paths is not used: the token is
 * the key.
 *
 * <h2>Asynchronous requests</h2>
 *
 * A protected request cannot go asynchronous: its response is recorded when the chain returns, so
 * the request the application sees refuses {@code startAsync()} (with Spring MVC, a {@code
 * Callable} or {@code DeferredResult} handler fails with that message and the client gets 500;
 * nothing is recorded and the key is released). Requests the filter does not protect may use async
 * processing as usual.
 *
 * <p>Every answer the filter makes itself is an RFC 9457 {@code application/problem+json} document
 * and never contains the key. Immutable and thread-safe once built; the no-argument constructor
 * (for {@code web.xml} and containers) reads the settings from the filter's init-parameters and the
 * {@code idempotent.web.*} properties in {@link #init}.
 */
public final class IdempotencyFilter implements Filter {
  /** The request header carrying the key. */
  public static final String KEY_HEADER = "Idempotency-Key";

  /** The response header marking a replayed response. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  public static final String DEFAULT_SUBMIT_TOKEN_FIELD = "_submit_token";
  public static final String DEFAULT_SUBMIT_TOKEN_HEADER = "Submit-Token";

  /** Prefix of the settings in {@code idempotent.properties} and system properties. */
  public static final String PROPERTY_PREFIX = "idempotent.web.";

  public static final List<String> DEFAULT_METHODS = List.of("POST", "PATCH");
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
  public static final int DEFAULT_MAX_REQUEST_BODY_BYTES = 1 << 20;
  public static final int DEFAULT_MAX_RESPONSE_BODY_BYTES = 1 << 20;
  public static final String DEFAULT_SCOPE = "http";
  public static final String DEFAULT_PROBLEM_TYPE_BASE = "https://idempotent.dev/problems/";

  /**
   * The response headers recorded and replayed unless {@link Builder#replayedHeaders} says
   * otherwise.
   */
  public static final List<String> DEFAULT_REPLAYED_HEADERS =
      List.of(
          "Content-Type",
          "Content-Language",
          "Content-Disposition",
          "Content-Location",
          "Location",
          "Cache-Control",
          "ETag",
          "Last-Modified",
          "Expires",
          "Vary",
          "Link");

  /** Headers that are never recorded: cookies, authentication, hop-by-hop and framing headers. */
  public static final Set<String> NEVER_REPLAYED =
      Collections.unmodifiableSet(
          caseInsensitive(
              List.of(
                  "Set-Cookie",
                  "Set-Cookie2",
                  "Authorization",
                  "WWW-Authenticate",
                  "Proxy-Authenticate",
                  "Proxy-Authorization",
                  "Authentication-Info",
                  "Proxy-Authentication-Info",
                  "Connection",
                  "Keep-Alive",
                  "Transfer-Encoding",
                  "TE",
                  "Trailer",
                  "Upgrade",
                  "Content-Length",
                  "Date",
                  REPLAYED_HEADER)));

  /**
   * The names of the settings, as init-parameters (and, with {@link #PROPERTY_PREFIX}, as
   * properties).
   */
  public static final List<String> SETTINGS =
      List.of(
          "methods",
          "paths",
          "key-required-paths",
          "scope",
          "store",
          "ttl",
          "lease",
          "wait-timeout",
          "on-in-progress",
          "retry-after",
          "max-request-body",
          "max-response-body",
          "replayed-headers",
          "record-client-errors",
          "submit-token-paths",
          "submit-token-field",
          "submit-token-header",
          "submit-token-ttl",
          "on-duplicate-submit",
          "problem-type-base");

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.web");

  /** How many scopes' policies a filter keeps (see {@code Builder.policy}). */
  static final int MAX_KEPT_POLICIES = 1024;

  /** The longest scope whose policy is kept: the kept ones hold at most about 0.5 MiB of text. */
  static final int MAX_KEPT_SCOPE_LENGTH = 512;

  private static final String ATTRIBUTE = IdempotencyFilter.class.getName();

  private volatile Builder settings;
  private volatile SubmitTokens tokens;

  /**
   * For {@code web.xml} and containers: configured in {@link #init} from init-parameters and
   * properties.
   */
  public IdempotencyFilter() {}

  private IdempotencyFilter(Builder b) {
    this.settings = b.copy();
  }

  /** A validating builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The idempotency filter {@code request} passed (the first one, when there are several), for a
   * servlet that issues submit tokens; {@code null} when no idempotency filter saw the request. Set
   * for every request the filter sees, whatever its method or path.
   */
  public static IdempotencyFilter of(ServletRequest request) {
    Object f = request.getAttribute(ATTRIBUTE);
    return f instanceof IdempotencyFilter filter ? filter : null;
  }

  /**
   * A fresh submit token for the form that posts to {@code scene}, bound to the subject of {@code
   * request} ({@link Builder#submitSubject}; by default the principal's name, else the session,
   * which is created if there is none). Render it in the form field {@link
   * Builder#submitTokenField} (or send it in the header).
   *
   * @param scene the scene the submit will have: by default the path it posts to, e.g. {@code
   *     /orders}
   */
  public String issueSubmitToken(HttpServletRequest request, String scene) {
    Builder s = settings();
    if (s.submitSubject == DEFAULT_SUBJECT && request.getUserPrincipal() == null) {
      request.getSession(true);
    }
    String subject = s.submitSubject.apply(request);
    if (subject == null) {
      throw new IllegalStateException(
          "the submit subject of this request is null: the submitSubject function "
              + "must name the user or session a token is issued to");
    }
    return submitTokens(s).issue(scene, subject);
  }

  /** The submit tokens this filter checks (over the current {@link Idempotency} instance). */
  public SubmitTokens submitTokens() {
    return submitTokens(settings());
  }

  /** The form field that carries a submit token. */
  public String submitTokenField() {
    return settings().submitTokenField;
  }

  /** The request header that carries a submit token. */
  public String submitTokenHeader() {
    return settings().submitTokenHeader;
  }

  /**
   * A filter made with the no-argument constructor reads its settings here: the {@code
   * idempotent.web.*} properties, then the init-parameters ({@link #SETTINGS}). A filter made by
   * the builder keeps its settings.
   */
  @Override
  public void init(FilterConfig config) throws ServletException {
    if (settings != null) {
      return;
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (String name : Collections.list(config.getInitParameterNames())) {
      params.put(name, config.getInitParameter(name));
    }
    try {
      settings = new Builder().properties().settings(params).copy();
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
    Builder s = settings();
    if (request.getAttribute(ATTRIBUTE) == null) {
      request.setAttribute(ATTRIBUTE, this);
    }
    String path = pathOf(request);
    if (request.getDispatcherType() != DispatcherType.REQUEST
        || !s.methods.contains(request.getMethod().toUpperCase(Locale.ROOT))
        || !s.paths.matches(path)) {
      chain.doFilter(request, response);
      return;
    }
    if (s.submitTokenPaths.matches(path)) {
      submit(s, request, response, chain, path);
      return;
    }
    Enumeration<String> headers = request.getHeaders(KEY_HEADER);
    List<String> keyHeaders = headers == null ? List.of() : Collections.list(headers);
    if (keyHeaders.isEmpty()) {
      if (s.keyRequired.matches(path)) {
        problem(
            s,
            response,
            Problem.KEY_MISSING,
            "this endpoint requires an "
                + KEY_HEADER
                + " header: send a new unique key (a UUID, say) with each new request and the same"
                + " key with every retry of it",
            0);
      } else {
        chain.doFilter(request, response);
      }
      return;
    }
    String key;
    try {
      key = KeyHeader.parse(keyHeaders);
    } catch (IllegalArgumentException e) {
      problem(s, response, Problem.KEY_INVALID, e.getMessage(), 0);
      return;
    }
    BufferedRequest buffered = buffer(s, request, response);
    if (buffered == null) {
      return;
    }
    Idempotency idempotency = s.idempotency();
    IdempotencyPolicy policy = s.policy(scopeOf(s, request, path));
    List<Object> payload =
        List.of(
            request.getMethod(),
            path,
            Objects.toString(request.getQueryString(), ""),
            Objects.toString(request.getContentType(), ""),
            buffered.body(),
            buffered.formParameters());
    Exchange exchange = new Exchange(s, buffered, response, s.recordClientErrors ? 500 : 400);
    try {
      byte[] outcome = idempotency.execute(policy, key, payload, () -> exchange.run(chain));
      exchange.send(outcome);
    } catch (UnrecordedResponse e) {
      exchange.sendUnrecorded();
    } catch (IdempotencyKeyMismatchException e) {
      problem(
          s,
          response,
          Problem.KEY_REUSED,
          "this "
              + KEY_HEADER
              + " was already used with a different request "
              + "(method, path, query, Content-Type or body): use a new key for a new request",
          0);
    } catch (IdempotencyInProgressException e) {
      problem(
          s,
          response,
          Problem.IN_PROGRESS,
          "a request with this "
              + KEY_HEADER
              + " is still being processed: "
              + "retry after the Retry-After delay to get its response",
          retryAfterSeconds(s, e.leaseRemaining()));
    } catch (IdempotencyException e) {
      if (!answered(s, response, e)) {
        throw e;
      }
    } catch (IOException | ServletException | RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
  }

  private void submit(
      Builder s,
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain,
      String path)
      throws IOException, ServletException {
    BufferedRequest buffered = buffer(s, request, response);
    if (buffered == null) {
      return;
    }
    String token = request.getHeader(s.submitTokenHeader);
    if (token == null || token.isBlank()) {
      token = buffered.getParameter(s.submitTokenField);
    }
    if (token == null || token.isBlank()) {
      problem(
          s,
          response,
          Problem.SUBMIT_TOKEN_MISSING,
          "this form must be submitted with its submit token (the "
              + "form field "
              + s.submitTokenField
              + " or the header "
              + s.submitTokenHeader
              + "): reload the form and "
              + "submit it again",
          0);
      return;
    }
    String scene = s.submitScene.apply(request);
    String subject = s.submitSubject.apply(request);
    Exchange exchange = new Exchange(s, buffered, response, 400);
    try {
      if (scene == null || scene.isBlank() || subject == null) {
        throw new SubmitTokenException(null);
      }
      byte[] outcome =
          submitTokens(s)
              .execute(scene, subject, token.strip(), byte[].class, () -> exchange.run(chain));
      exchange.send(outcome);
    } catch (UnrecordedResponse e) {
      exchange.sendUnrecorded();
    } catch (SubmitTokenException e) {
      problem(
          s,
          response,
          Problem.SUBMIT_TOKEN_INVALID,
          "this form's submit token is not valid (it was not issued "
              + "for this form and user, or it has expired): reload the form and submit it again",
          0);
    } catch (DuplicateRequestException e) {
      problem(
          s,
          response,
          Problem.ALREADY_SUBMITTED,
          "this form was already submitted: reload it to submit again",
          0);
    } catch (IdempotencyInProgressException e) {
      problem(
          s,
          response,
          Problem.IN_PROGRESS,
          "this form is still being submitted: wait a moment and reload",
          retryAfterSeconds(s, e.leaseRemaining()));
    } catch (IdempotencyException e) {
      if (!answered(s, response, e)) {
        throw e;
      }
    } catch (IOException | ServletException | RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
  }

  /** The body buffered, or {@code null} when the 413 has been sent. */
  private static BufferedRequest buffer(
      Builder s, HttpServletRequest request, HttpServletResponse response) throws IOException {
    try {
      return BufferedRequest.read(request, s.maxRequestBodyBytes);
    } catch (BufferedRequest.TooLarge e) {
      problem(
          s,
          response,
          Problem.BODY_TOO_LARGE,
          "the request body is larger than "
              + s.maxRequestBodyBytes
              + " bytes, the most this endpoint accepts",
          0);
      return null;
    }
  }

  /**
   * Maps the remaining library exceptions; false when the exception is not one the filter answers.
   */
  private static boolean answered(Builder s, HttpServletResponse response, IdempotencyException e)
      throws IOException {
    if (e instanceof IdempotencyStoreException) {
      LOG.warn(
          "the idempotency store failed, so a request was refused with 503 (fail-closed): {}",
          e.getCause() == null ? e.getMessage() : e.getCause().toString());
      problem(
          s,
          response,
          Problem.STORE_UNAVAILABLE,
          "the idempotency store is unavailable, so the request was not "
              + "processed: retry later",
          retryAfterSeconds(s, null));
      return true;
    }
    return false;
  }

  private static void problem(
      Builder s, HttpServletResponse response, Problem p, String detail, long retryAfter)
      throws IOException {
    if (response.isCommitted()) {
      LOG.warn("could not answer {} {}: the response was already committed", p.status(), p.title());
      return;
    }
    p.write(response, s.problemTypeBase, detail, retryAfter);
  }

  private static long retryAfterSeconds(Builder s, Duration leaseRemaining) {
    Duration d = s.retryAfter;
    if (leaseRemaining != null && !leaseRemaining.isNegative() && leaseRemaining.compareTo(d) < 0) {
      d = leaseRemaining;
    }
    long seconds = (d.toMillis() + 999) / 1000;
    return Math.max(1, seconds);
  }

  private static String pathOf(HttpServletRequest request) {
    String servletPath = request.getServletPath();
    String info = request.getPathInfo();
    String path = (servletPath == null ? "" : servletPath) + (info == null ? "" : info);
    if (path.isEmpty()) {
      String uri = request.getRequestURI();
      String ctx = request.getContextPath();
      path = uri.startsWith(ctx) ? uri.substring(ctx.length()) : uri;
    }
    return path.isEmpty() ? "/" : path;
  }

  private static String scopeOf(Builder s, HttpServletRequest request, String path) {
    String caller = s.callerIdentity.apply(request);
    return s.scope
        + ":"
        + request.getMethod().toUpperCase(Locale.ROOT)
        + " "
        + path
        + (caller == null ? "" : " @" + Fingerprints.of(caller));
  }

  private Builder settings() {
    Builder s = settings;
    if (s == null) {
      synchronized (this) {
        s = settings;
        if (s == null) {
          s = new Builder().properties().copy();
          settings = s;
        }
      }
    }
    return s;
  }

  private SubmitTokens submitTokens(Builder s) {
    Idempotency idempotency = s.idempotency();
    SubmitTokens t = tokens;
    if (t == null || t.idempotency() != idempotency) {
      SubmitTokens.Builder b =
          SubmitTokens.builder(idempotency)
              .store(s.store)
              .ttl(s.submitTokenTtl)
              .onDuplicate(s.onDuplicateSubmit)
              .onInProgress(OnInProgress.WAIT);
      if (s.lease != null) {
        b.lease(s.lease);
      }
      if (s.waitTimeout != null) {
        b.waitTimeout(s.waitTimeout);
      }
      t = b.build();
      tokens = t;
    }
    return t;
  }

  /**
   * One protected request: runs the chain into a capturing response and sends what is to be sent.
   */
  private static final class Exchange {
    private final Builder settings;
    private final BufferedRequest request;
    private final HttpServletResponse response;
    private final int firstUnrecordedStatus;
    private CapturingResponse capture;

    Exchange(
        Builder settings,
        BufferedRequest request,
        HttpServletResponse response,
        int firstUnrecordedStatus) {
      this.settings = settings;
      this.request = request;
      this.response = response;
      this.firstUnrecordedStatus = firstUnrecordedStatus;
    }

    /**
     * The executor's body: the chain, then the recorded response, or {@link UnrecordedResponse}.
     */
    byte[] run(FilterChain chain) throws IOException, ServletException {
      capture = new CapturingResponse(response, settings.maxResponseBodyBytes);
      chain.doFilter(request, capture);
      byte[] body = capture.finish();
      if (capture.overflowed()) {
        LOG.warn(
            "the response to {} {} is larger than {} bytes: it was sent unrecorded and the key"
                + " released, so a retry runs again; raise maxResponseBodyBytes to record it",
            request.getMethod(),
            request.getRequestURI(),
            settings.maxResponseBodyBytes);
        throw new UnrecordedResponse();
      }
      int status = capture.getStatus();
      if (capture.passedThrough() || status >= firstUnrecordedStatus) {
        throw new UnrecordedResponse();
      }
      try {
        return new RecordedResponse(status, replayableHeaders(), body).encode();
      } catch (RuntimeException e) {
        LOG.warn(
            "the response to {} {} cannot be recorded ({}): it was sent unrecorded and the key"
                + " released",
            request.getMethod(),
            request.getRequestURI(),
            e.toString());
        throw new UnrecordedResponse();
      }
    }

    private List<Map.Entry<String, String>> replayableHeaders() {
      List<Map.Entry<String, String>> out = new ArrayList<>();
      String contentType = response.getContentType();
      if (contentType != null && settings.replayedHeaders.contains("Content-Type")) {
        out.add(Map.entry("Content-Type", contentType));
      }
      // a container may name a header once per value, in any case: each replayable name once
      List<String> seen = new ArrayList<>(4);
      for (String name : response.getHeaderNames()) {
        if (name.equalsIgnoreCase("Content-Type")
            || !settings.replayedHeaders.contains(name)
            || containsIgnoringCase(seen, name)) {
          continue;
        }
        seen.add(name);
        for (String value : response.getHeaders(name)) {
          out.add(Map.entry(name, value));
        }
      }
      return out;
    }

    /** Whether {@code names} (a few replayable header names) holds {@code name} in any case. */
    private static boolean containsIgnoringCase(List<String> names, String name) {
      for (String n : names) {
        if (n.equalsIgnoreCase(name)) {
          return true;
        }
      }
      return false;
    }

    /** After the executor returned: the first response, or a replay when the body did not run. */
    void send(byte[] outcome) throws IOException {
      if (capture != null) {
        capture.sendBuffered();
        return;
      }
      RecordedResponse recorded = RecordedResponse.decode(outcome);
      response.resetBuffer();
      response.setStatus(recorded.status());
      List<Map.Entry<String, String>> headers = recorded.headers();
      Set<String> set = headers.size() > 16 ? caseInsensitive(List.of()) : null;
      for (int i = 0; i < headers.size(); i++) {
        Map.Entry<String, String> h = headers.get(i);
        if (set != null ? set.add(h.getKey()) : isFirst(headers, i)) {
          response.setHeader(h.getKey(), h.getValue());
        } else {
          response.addHeader(h.getKey(), h.getValue());
        }
      }
      response.setHeader(REPLAYED_HEADER, "true");
      response.setContentLength(recorded.bodyLength());
      if (recorded.bodyLength() > 0) {
        recorded.writeBodyTo(response.getOutputStream());
      }
    }

    /** Whether no header before {@code i} has its name (a few recorded headers: no set). */
    private static boolean isFirst(List<Map.Entry<String, String>> headers, int i) {
      String name = headers.get(i).getKey();
      for (int j = 0; j < i; j++) {
        if (headers.get(j).getKey().equalsIgnoreCase(name)) {
          return false;
        }
      }
      return true;
    }

    void sendUnrecorded() throws IOException {
      capture.sendBuffered();
    }
  }

  private static Set<String> caseInsensitive(Collection<String> names) {
    Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    set.addAll(names);
    return set;
  }

  private static final Function<HttpServletRequest, String> DEFAULT_IDENTITY =
      request -> {
        Principal p = request.getUserPrincipal();
        return p == null ? null : p.getName();
      };

  private static final Function<HttpServletRequest, String> DEFAULT_SUBJECT =
      request -> {
        Principal p = request.getUserPrincipal();
        if (p != null) {
          return "user:" + p.getName();
        }
        HttpSession session = request.getSession(false);
        return session == null ? null : "session:" + session.getId();
      };

  private static final Function<HttpServletRequest, String> DEFAULT_SCENE =
      IdempotencyFilter::pathOf;

  /**
   * Validating builder. Each setter checks its value at once and names it when it is wrong; {@link
   * #settings} and {@link #properties} read the same settings by name ({@link #SETTINGS}).
   */
  public static final class Builder {
    private Idempotency idempotency;
    private Set<String> methods = new LinkedHashSet<>(DEFAULT_METHODS);
    private PathPatterns paths = PathPatterns.of(List.of("/*"), "paths");
    private PathPatterns keyRequired = PathPatterns.of(List.of(), "keyRequired");
    private String scope = DEFAULT_SCOPE;
    private Function<HttpServletRequest, String> callerIdentity = DEFAULT_IDENTITY;
    private String store = "";
    private Duration ttl;
    private Duration lease;
    private Duration waitTimeout;
    private OnInProgress onInProgress = OnInProgress.REJECT;
    private Duration retryAfter = DEFAULT_RETRY_AFTER;
    private int maxRequestBodyBytes = DEFAULT_MAX_REQUEST_BODY_BYTES;
    private int maxResponseBodyBytes = DEFAULT_MAX_RESPONSE_BODY_BYTES;
    private Set<String> replayedHeaders = caseInsensitive(DEFAULT_REPLAYED_HEADERS);
    private boolean recordClientErrors = true;
    private PathPatterns submitTokenPaths = PathPatterns.of(List.of(), "submitTokenPaths");
    private String submitTokenField = DEFAULT_SUBMIT_TOKEN_FIELD;
    private String submitTokenHeader = DEFAULT_SUBMIT_TOKEN_HEADER;
    private Duration submitTokenTtl = SubmitTokens.DEFAULT_TTL;
    private OnDuplicate onDuplicateSubmit = OnDuplicate.REPLAY;
    private Function<HttpServletRequest, String> submitScene = DEFAULT_SCENE;
    private Function<HttpServletRequest, String> submitSubject = DEFAULT_SUBJECT;
    private String problemTypeBase = DEFAULT_PROBLEM_TYPE_BASE;

    /**
     * The policies of the scopes requests were made in, each with the plan it keeps: at most {@link
     * #MAX_KEPT_POLICIES} scopes of at most {@link #MAX_KEPT_SCOPE_LENGTH} characters, then the set
     * starts again (callers and paths are the client's).
     */
    private final Map<String, IdempotencyPolicy> policies = new ConcurrentHashMap<>();

    private Builder() {}

    /**
     * The instance to run on (its store, policy and clock); default {@link Idempotency#global()},
     * per request.
     */
    public Builder idempotency(Idempotency idempotency) {
      this.idempotency = Objects.requireNonNull(idempotency, "idempotency must not be null");
      return this;
    }

    /**
     * The HTTP methods the filter protects (default {@code POST}, {@code PATCH}); others pass
     * through.
     */
    public Builder methods(String... methods) {
      Set<String> m = new LinkedHashSet<>();
      for (String method : methods) {
        if (method == null
            || method.isBlank()
            || !method.strip().chars().allMatch(Character::isLetter)) {
          throw new IllegalArgumentException(
              "methods: '" + method + "' is not an HTTP method name");
        }
        m.add(method.strip().toUpperCase(Locale.ROOT));
      }
      if (m.isEmpty()) {
        throw new IllegalArgumentException("methods must name at least one HTTP method, e.g. POST");
      }
      this.methods = m;
      return this;
    }

    /** The paths the filter looks at, as servlet URL patterns (default {@code /*}: all). */
    public Builder paths(String... patterns) {
      this.paths = PathPatterns.of(List.of(patterns), "paths");
      return this;
    }

    /**
     * Paths where a request without {@code Idempotency-Key} gets 400 (default none: it passes
     * through).
     */
    public Builder keyRequired(String... patterns) {
      this.keyRequired = PathPatterns.of(List.of(patterns), "keyRequired");
      return this;
    }

    /**
     * The prefix of every record's scope (default {@code http}); distinguishes applications sharing
     * a store.
     */
    public Builder scope(String scope) {
      if (scope == null || scope.isBlank()) {
        throw new IllegalArgumentException("scope must not be blank, e.g. \"orders-api\"");
      }
      this.scope = scope.strip();
      return this;
    }

    /**
     * Who the caller is, part of every record's scope so callers cannot replay each other's
     * responses (default: the principal's name; {@code null} for an anonymous caller). For example
     * an API-key header or a tenant.
     */
    public Builder callerIdentity(Function<HttpServletRequest, String> identity) {
      this.callerIdentity = Objects.requireNonNull(identity, "callerIdentity must not be null");
      return this;
    }

    /** The named store (default {@code ""}: the configuration's default store). */
    public Builder store(String name) {
      this.store =
          Objects.requireNonNull(name, "store name must not be null (\"\" = default store)");
      return this;
    }

    /** How long a response is replayed (default: the configuration's ttl). */
    public Builder ttl(Duration ttl) {
      this.ttl = positive(ttl, "ttl");
      return this;
    }

    /** The lease of a running request (default: the configuration's). */
    public Builder lease(Duration lease) {
      this.lease = positive(lease, "lease");
      return this;
    }

    /** How long a repeat waits with {@link OnInProgress#WAIT} (default: the configuration's). */
    public Builder waitTimeout(Duration waitTimeout) {
      this.waitTimeout = positive(waitTimeout, "waitTimeout");
      return this;
    }

    /**
     * A repeat while the first request runs: {@code REJECT} with 409 (default) or {@code WAIT} and
     * replay.
     */
    public Builder onInProgress(OnInProgress onInProgress) {
      this.onInProgress = Objects.requireNonNull(onInProgress, "onInProgress");
      return this;
    }

    /**
     * The {@code Retry-After} of a 409 or 503 (default 1 s, rounded up to whole seconds; a 409
     * never says more than the holder's remaining lease).
     */
    public Builder retryAfter(Duration retryAfter) {
      this.retryAfter = positive(retryAfter, "retryAfter");
      return this;
    }

    /** The largest request body buffered (default 1 MiB); larger: 413. */
    public Builder maxRequestBodyBytes(int bytes) {
      this.maxRequestBodyBytes = positiveSize(bytes, "maxRequestBodyBytes");
      return this;
    }

    /**
     * The largest response body recorded (default 1 MiB); larger ones are sent unrecorded, with a
     * WARN.
     */
    public Builder maxResponseBodyBytes(int bytes) {
      this.maxResponseBodyBytes = positiveSize(bytes, "maxResponseBodyBytes");
      return this;
    }

    /**
     * The response headers recorded and replayed (default {@link #DEFAULT_REPLAYED_HEADERS}).
     *
     * @throws IllegalArgumentException for a header in {@link #NEVER_REPLAYED}
     */
    public Builder replayedHeaders(String... names) {
      Set<String> set = caseInsensitive(List.of());
      for (String n : names) {
        if (n == null || n.isBlank()) {
          throw new IllegalArgumentException("replayedHeaders must not contain a blank name");
        }
        if (NEVER_REPLAYED.contains(n.strip())) {
          throw new IllegalArgumentException(
              "replayedHeaders: "
                  + n.strip()
                  + " is never replayed (cookies, "
                  + "authentication, hop-by-hop and framing headers belong to one response only)");
        }
        set.add(n.strip());
      }
      this.replayedHeaders = set;
      return this;
    }

    /**
     * Whether 4xx responses to {@code Idempotency-Key} requests are recorded (default true; 5xx
     * never are).
     */
    public Builder recordClientErrors(boolean record) {
      this.recordClientErrors = record;
      return this;
    }

    /** Paths whose protected requests must carry a submit token (default none). */
    public Builder submitTokenPaths(String... patterns) {
      this.submitTokenPaths = PathPatterns.of(List.of(patterns), "submitTokenPaths");
      return this;
    }

    /** The form field carrying the submit token (default {@code _submit_token}). */
    public Builder submitTokenField(String name) {
      this.submitTokenField = name(name, "submitTokenField");
      return this;
    }

    /** The request header carrying the submit token (default {@code Submit-Token}). */
    public Builder submitTokenHeader(String name) {
      this.submitTokenHeader = name(name, "submitTokenHeader");
      return this;
    }

    /**
     * How long an issued submit token is valid (default {@link SubmitTokens#DEFAULT_TTL}, 15
     * minutes).
     */
    public Builder submitTokenTtl(Duration ttl) {
      this.submitTokenTtl = positive(ttl, "submitTokenTtl");
      return this;
    }

    /**
     * A submit with a used token: {@code REPLAY} the first response (default) or {@code REJECT}
     * with 409.
     */
    public Builder onDuplicateSubmit(OnDuplicate onDuplicate) {
      this.onDuplicateSubmit = Objects.requireNonNull(onDuplicate, "onDuplicateSubmit");
      return this;
    }

    /** The scene of a submit (default: its path within the application, e.g. {@code /orders}). */
    public Builder submitScene(Function<HttpServletRequest, String> scene) {
      this.submitScene = Objects.requireNonNull(scene, "submitScene must not be null");
      return this;
    }

    /**
     * Whom a submit token is bound to (default: the principal's name, else the HTTP session; {@code
     * null} when there is neither, which no token matches). Called when issuing and when checking a
     * token.
     */
    public Builder submitSubject(Function<HttpServletRequest, String> subject) {
      this.submitSubject = Objects.requireNonNull(subject, "submitSubject must not be null");
      return this;
    }

    /**
     * The prefix of every problem's {@code type} URI (default {@link #DEFAULT_PROBLEM_TYPE_BASE}).
     */
    public Builder problemTypeBase(String base) {
      if (base == null
          || base.isBlank()
          || base.chars().anyMatch(c -> c <= ' ' || c > '~' || c == '"')) {
        throw new IllegalArgumentException(
            "problemTypeBase must be a URI prefix, e.g. https://example.com/problems/"
                + ", was '"
                + base
                + "'");
      }
      this.problemTypeBase = base;
      return this;
    }

    /**
     * Applies settings by name ({@link #SETTINGS}: {@code methods}, {@code key-required-paths},
     * {@code ttl} …), as init-parameters give them; lists are comma-separated, durations like
     * {@code 500ms}, {@code 30s}, {@code 15m}, sizes in bytes or with {@code KiB}/{@code MiB}.
     * Blank values are ignored.
     *
     * @throws IllegalArgumentException naming an unknown setting or a bad value
     */
    public Builder settings(Map<String, String> values) {
      for (Map.Entry<String, String> e : values.entrySet()) {
        String name = e.getKey();
        String v = e.getValue() == null ? "" : e.getValue().strip();
        if (!SETTINGS.contains(name)) {
          throw new IllegalArgumentException(
              "unknown idempotency filter setting '" + name + "'; known: " + SETTINGS);
        }
        if (v.isEmpty()) {
          continue;
        }
        try {
          apply(name, v);
        } catch (IllegalArgumentException ex) {
          throw new IllegalArgumentException(
              "setting " + name + "=" + v + ": " + ex.getMessage(), ex);
        }
      }
      return this;
    }

    /**
     * Applies the {@code idempotent.web.*} entries of {@code idempotent.properties} and system
     * properties.
     */
    public Builder properties() {
      Map<String, String> values = new LinkedHashMap<>();
      PropertiesConfigLoader.settings()
          .forEach(
              (k, v) -> {
                if (k.startsWith(PROPERTY_PREFIX)) {
                  values.put(k.substring(PROPERTY_PREFIX.length()), v);
                }
              });
      try {
        return settings(values);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(PROPERTY_PREFIX + "* properties: " + e.getMessage(), e);
      }
    }

    private void apply(String name, String v) {
      String[] list =
          Arrays.stream(v.split(","))
              .map(String::strip)
              .filter(x -> !x.isEmpty())
              .toArray(String[]::new);
      switch (name) {
        case "methods" -> methods(list);
        case "paths" -> paths(list);
        case "key-required-paths" -> keyRequired(list);
        case "scope" -> scope(v);
        case "store" -> store(v);
        case "ttl" -> ttl(StoreSettings.parseDuration(v));
        case "lease" -> lease(StoreSettings.parseDuration(v));
        case "wait-timeout" -> waitTimeout(StoreSettings.parseDuration(v));
        case "on-in-progress" -> onInProgress(OnInProgress.valueOf(v.toUpperCase(Locale.ROOT)));
        case "retry-after" -> retryAfter(StoreSettings.parseDuration(v));
        case "max-request-body" -> maxRequestBodyBytes(size(v));
        case "max-response-body" -> maxResponseBodyBytes(size(v));
        case "replayed-headers" -> replayedHeaders(list);
        case "record-client-errors" -> recordClientErrors(bool(v));
        case "submit-token-paths" -> submitTokenPaths(list);
        case "submit-token-field" -> submitTokenField(v);
        case "submit-token-header" -> submitTokenHeader(v);
        case "submit-token-ttl" -> submitTokenTtl(StoreSettings.parseDuration(v));
        case "on-duplicate-submit" ->
            onDuplicateSubmit(OnDuplicate.valueOf(v.toUpperCase(Locale.ROOT)));
        case "problem-type-base" -> problemTypeBase(v);
        default -> throw new IllegalStateException(name);
      }
    }

    /**
     * The filter; the {@link Idempotency} instance is looked up per request when none was given.
     */
    public IdempotencyFilter build() {
      if (idempotency != null) {
        IdempotencyConfig config = idempotency.config();
        config.store(store);
      }
      return new IdempotencyFilter(this);
    }

    Idempotency idempotency() {
      return idempotency != null ? idempotency : Idempotency.global();
    }

    /** The policy of a protected request in {@code scope}: made once per scope and kept. */
    IdempotencyPolicy policy(String scope) {
      IdempotencyPolicy kept = policies.get(scope);
      if (kept != null) {
        return kept;
      }
      IdempotencyPolicy.Builder b =
          IdempotencyPolicy.builder(scope)
              .store(store)
              .onInProgress(onInProgress)
              .onDuplicate(OnDuplicate.REPLAY)
              .resultType(byte[].class);
      if (ttl != null) {
        b.ttl(ttl);
      }
      if (lease != null) {
        b.lease(lease);
      }
      if (waitTimeout != null) {
        b.waitTimeout(waitTimeout);
      }
      IdempotencyPolicy made = b.build();
      if (scope.length() > MAX_KEPT_SCOPE_LENGTH) {
        return made; // a long path (the client's) is not kept
      }
      if (policies.size() >= MAX_KEPT_POLICIES) {
        policies.clear();
      }
      policies.put(scope, made);
      return made;
    }

    private Builder copy() {
      Builder b = new Builder();
      b.idempotency = idempotency;
      b.methods = Collections.unmodifiableSet(new LinkedHashSet<>(methods));
      b.paths = paths;
      b.keyRequired = keyRequired;
      b.scope = scope;
      b.callerIdentity = callerIdentity;
      b.store = store;
      b.ttl = ttl;
      b.lease = lease;
      b.waitTimeout = waitTimeout;
      b.onInProgress = onInProgress;
      b.retryAfter = retryAfter;
      b.maxRequestBodyBytes = maxRequestBodyBytes;
      b.maxResponseBodyBytes = maxResponseBodyBytes;
      Set<String> headers = caseInsensitive(replayedHeaders);
      b.replayedHeaders = Collections.unmodifiableSet(headers);
      b.recordClientErrors = recordClientErrors;
      b.submitTokenPaths = submitTokenPaths;
      b.submitTokenField = submitTokenField;
      b.submitTokenHeader = submitTokenHeader;
      b.submitTokenTtl = submitTokenTtl;
      b.onDuplicateSubmit = onDuplicateSubmit;
      b.submitScene = submitScene;
      b.submitSubject = submitSubject;
      b.problemTypeBase = problemTypeBase;
      return b;
    }

    private static Duration positive(Duration d, String what) {
      if (d == null) {
        throw new NullPointerException(what + " must not be null");
      }
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }

    private static int positiveSize(int bytes, String what) {
      if (bytes <= 0) {
        throw new IllegalArgumentException(what + " must be positive, was " + bytes);
      }
      return bytes;
    }

    private static String name(String name, String what) {
      if (name == null
          || name.isBlank()
          || !name.strip().chars().allMatch(c -> c > ' ' && c < 0x7f && c != ':')) {
        throw new IllegalArgumentException(
            what + " must be a field or header name, was '" + name + "'");
      }
      return name.strip();
    }

    private static int size(String v) {
      String s = v.strip();
      long factor = 1;
      String lower = s.toLowerCase(Locale.ROOT);
      for (String[] unit :
          new String[][] {{"kib", "1024"}, {"mib", "1048576"}, {"k", "1024"}, {"m", "1048576"}}) {
        if (lower.endsWith(unit[0])) {
          factor = Long.parseLong(unit[1]);
          s = s.substring(0, s.length() - unit[0].length()).strip();
          break;
        }
      }
      long n;
      try {
        n = Long.parseLong(s) * factor;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a size: give bytes, e.g. 1048576 or 1MiB");
      }
      if (n <= 0 || n > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException("size out of range");
      }
      return (int) n;
    }

    private static boolean bool(String v) {
      if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
        return Boolean.parseBoolean(v);
      }
      throw new IllegalArgumentException("expected true or false");
    }
  }
}
