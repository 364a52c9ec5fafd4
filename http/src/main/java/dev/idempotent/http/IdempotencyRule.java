package dev.idempotent.http;

import dev.idempotent.IdempotencySettings;
import dev.idempotent.OnInProgress;
import dev.idempotent.SubmitTokens;
import dev.idempotent.http.internal.PathPatterns;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which requests are protected, in which scope, and how: path patterns, methods, where the key
 * comes from, and the settings of the calls. The application chooses a rule's scope; whatever a
 * client sends (path, method, identity, key) becomes part of the record's key, never of its scope,
 * so the number of scopes is the number of rules.
 *
 * <pre>{@code
 * IdempotencyRule orders = IdempotencyRule.builder("orders-api")
 *     .paths("/api/orders", "/api/orders/*")
 *     .key(IdempotencyRule.Key.REQUIRED)
 *     .ttl(Duration.ofHours(24))
 *     .build();
 * IdempotencyRule checkout = IdempotencyRule.submitTokens("checkout").paths("/orders").build();
 * }</pre>
 *
 * Immutable; every setter checks its value at once and names it when it is wrong.
 */
public final class IdempotencyRule {
  /** Where a protected request's key comes from. */
  public enum Key {
    /**
     * The {@code Idempotency-Key} header; a request without one passes through unprotected (the
     * default).
     */
    OPTIONAL,
    /** The {@code Idempotency-Key} header; a request without one is answered 400. */
    REQUIRED,
    /** A one-time submit token (a form field or a header), issued by the application. */
    SUBMIT_TOKEN
  }

  /** What requests without a caller identity may do. */
  public enum Anonymous {
    /**
     * Anonymous requests are protected like any other; all anonymous callers share one key space,
     * so one who sends another's key gets that one's response. Keys are meant to be unguessable (a
     * UUID), which makes this safe for most APIs (the default).
     */
    SHARED,
    /** Anonymous requests to the rule's paths are answered 400 and never run. */
    REFUSE
  }

  public static final List<String> DEFAULT_METHODS = List.of("POST", "PATCH");
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
  public static final int DEFAULT_MAX_REQUEST_BODY_BYTES = 1 << 20;
  public static final int DEFAULT_MAX_RESPONSE_BODY_BYTES = 1 << 20;
  public static final String DEFAULT_SUBMIT_TOKEN_FIELD = "_submit_token";
  public static final String DEFAULT_SUBMIT_TOKEN_HEADER = "Submit-Token";

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
                  HttpIdempotency.REPLAYED_HEADER)));

  private final String scope;
  private final Key key;
  private final PathPatterns paths;
  private final PathPatterns excludedPaths;
  private final Set<String> methods;
  private final Anonymous anonymous;
  private final IdempotencySettings settings;
  private final Duration retryAfter;
  private final Duration maxHold;
  private final int maxRequestBodyBytes;
  private final int maxResponseBodyBytes;
  private final Set<String> replayedHeaders;
  private final ResponseSanitizer sanitizer;
  private final boolean recordClientErrors;
  private final String submitTokenField;
  private final String submitTokenHeader;

  private IdempotencyRule(Builder b) {
    this.scope = b.scope;
    this.key = b.key;
    this.paths = b.paths;
    this.excludedPaths = b.excludedPaths;
    this.methods = Collections.unmodifiableSet(new LinkedHashSet<>(b.methods));
    this.anonymous = b.anonymous;
    this.settings = b.buildSettings();
    this.retryAfter = b.retryAfter;
    this.maxHold = b.maxHold;
    this.maxRequestBodyBytes = b.maxRequestBodyBytes;
    this.maxResponseBodyBytes = b.maxResponseBodyBytes;
    this.replayedHeaders = Collections.unmodifiableSet(caseInsensitive(b.replayedHeaders));
    this.sanitizer = b.sanitizer;
    this.recordClientErrors = b.recordClientErrors;
    this.submitTokenField = b.submitTokenField;
    this.submitTokenHeader = b.submitTokenHeader;
  }

  /**
   * A rule for {@code Idempotency-Key} requests whose records live in {@code scope}.
   *
   * @param scope the rule's scope, chosen by the application, for example {@code orders-api}: every
   *     record of the rule's requests is kept in it, whatever path a request has
   */
  public static Builder builder(String scope) {
    return new Builder(scope, Key.OPTIONAL);
  }

  /**
   * A rule for form posts that carry a one-time submit token: {@link Key#SUBMIT_TOKEN}, with the
   * defaults of {@link SubmitTokens} (a token is valid for {@link SubmitTokens#DEFAULT_TTL}; a
   * concurrent submit waits for the running one). Its paths must be given.
   *
   * @param scope the scene of its tokens, for example {@code checkout}
   */
  public static Builder submitTokens(String scope) {
    return new Builder(scope, Key.SUBMIT_TOKEN)
        .ttl(SubmitTokens.DEFAULT_TTL)
        .onInProgress(OnInProgress.WAIT);
  }

  /** The scope of every record of this rule's requests (for submit tokens: their scene). */
  public String scope() {
    return scope;
  }

  public Key key() {
    return key;
  }

  /** The path patterns, as servlet URL patterns. */
  public List<String> paths() {
    return paths.patterns();
  }

  /** The protected HTTP methods, upper case. */
  public Set<String> methods() {
    return methods;
  }

  public Anonymous anonymous() {
    return anonymous;
  }

  /** Store, durations, in-progress and duplicate handling of the rule's calls. */
  public IdempotencySettings settings() {
    return settings;
  }

  /** The {@code Retry-After} of a 409 or 503 (a 409 never says more than the holder's lease). */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * The longest a request's work holds its key when the filter cannot see it end, or {@code null}
   * for the instance's max-hold ({@link dev.idempotent.IdempotencyConfig#maxHold()}): the servlet
   * filter stops holding the key of a timed-out request whose work never signals its end, and the
   * WebFlux filter cancels a handler that has not completed, this long after the request started.
   * The instance's max-hold still ends the lease renewal, so a longer value has no effect past it.
   */
  public Duration maxHold() {
    return maxHold;
  }

  /** The paths left out of the rule although its {@link #paths()} cover them (e.g. streams). */
  public List<String> excludedPaths() {
    return excludedPaths == null ? List.of() : excludedPaths.patterns();
  }

  public int maxRequestBodyBytes() {
    return maxRequestBodyBytes;
  }

  public int maxResponseBodyBytes() {
    return maxResponseBodyBytes;
  }

  /** The response headers recorded and replayed, case-insensitive. */
  public Set<String> replayedHeaders() {
    return replayedHeaders;
  }

  /** What decides which parts of a response are recorded ({@link ResponseSanitizer#NONE}). */
  public ResponseSanitizer sanitizer() {
    return sanitizer;
  }

  /**
   * Whether 4xx responses to {@code Idempotency-Key} requests are recorded (5xx never are, nor the
   * 4xx of a submit: a user corrects the form and submits the same token again).
   */
  public boolean recordClientErrors() {
    return recordClientErrors;
  }

  public String submitTokenField() {
    return submitTokenField;
  }

  public String submitTokenHeader() {
    return submitTokenHeader;
  }

  /** Whether a request of {@code method} (upper case) on {@code path} falls under this rule. */
  public boolean matches(String method, String path) {
    return methods.contains(method)
        && paths.matches(path)
        && (excludedPaths == null || !excludedPaths.matches(path));
  }

  /** The first status that is sent but not recorded. */
  int firstUnrecordedStatus() {
    return key == Key.SUBMIT_TOKEN || !recordClientErrors ? 400 : 500;
  }

  @Override
  public String toString() {
    return "IdempotencyRule{scope="
        + scope
        + ", key="
        + key
        + ", methods="
        + methods
        + ", paths="
        + paths
        + ", anonymous="
        + anonymous
        + ", "
        + settings
        + "}";
  }

  static Set<String> caseInsensitive(Collection<String> names) {
    Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    set.addAll(names);
    return set;
  }

  /**
   * Validating builder: the {@link IdempotencySettings} setters, and the rule's own. Record
   * failures do not apply (the response is the outcome) and are refused.
   */
  public static final class Builder extends IdempotencySettings.AbstractBuilder<Builder> {
    private final String scope;
    private final Key initialKey;
    private Key key;
    private PathPatterns paths;
    private PathPatterns excludedPaths;
    private Duration maxHold;
    private Set<String> methods = new LinkedHashSet<>(DEFAULT_METHODS);
    private Anonymous anonymous = Anonymous.SHARED;
    private Duration retryAfter = DEFAULT_RETRY_AFTER;
    private int maxRequestBodyBytes = DEFAULT_MAX_REQUEST_BODY_BYTES;
    private int maxResponseBodyBytes = DEFAULT_MAX_RESPONSE_BODY_BYTES;
    private Set<String> replayedHeaders = caseInsensitive(DEFAULT_REPLAYED_HEADERS);
    private ResponseSanitizer sanitizer = ResponseSanitizer.NONE;
    private boolean recordClientErrors = true;
    private String submitTokenField = DEFAULT_SUBMIT_TOKEN_FIELD;
    private String submitTokenHeader = DEFAULT_SUBMIT_TOKEN_HEADER;

    private Builder(String scope, Key key) {
      if (scope == null || scope.isBlank()) {
        throw new IllegalArgumentException(
            "a rule's scope must not be blank: name what the rule protects, e.g. \"orders-api\"");
      }
      this.scope = scope.strip();
      this.initialKey = key;
      this.key = key;
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * Where the key comes from: {@link Key#OPTIONAL} (default) or {@link Key#REQUIRED} for {@code
     * Idempotency-Key} rules; a rule made by {@link #submitTokens} always takes submit tokens.
     */
    public Builder key(Key key) {
      Objects.requireNonNull(key, "key must not be null");
      if ((key == Key.SUBMIT_TOKEN) != (initialKey == Key.SUBMIT_TOKEN)) {
        throw new IllegalArgumentException(
            "key "
                + key
                + ": make submit-token rules with IdempotencyRule.submitTokens(scope) and"
                + " Idempotency-Key rules with IdempotencyRule.builder(scope)");
      }
      this.key = key;
      return this;
    }

    /**
     * The paths the rule covers, as servlet URL patterns: exact ({@code /orders}), prefix ({@code
     * /api/*}), extension ({@code *.do}), or {@code /*} for all (the default of an {@code
     * Idempotency-Key} rule; a submit-token rule has none until given).
     */
    public Builder paths(String... patterns) {
      Objects.requireNonNull(patterns, "paths must not be null");
      this.paths = PathPatterns.of(List.of(patterns), "paths");
      return this;
    }

    /**
     * Paths the rule leaves out although {@link #paths} cover them, as servlet URL patterns: a
     * request on one passes through untouched (unprotected, unrecorded). For example the endpoints
     * that stream (server-sent events, NDJSON), which a filter passes through unrecorded anyway.
     */
    public Builder excludePaths(String... patterns) {
      Objects.requireNonNull(patterns, "excludePaths must not be null");
      this.excludedPaths = PathPatterns.of(List.of(patterns), "exclude-paths");
      return this;
    }

    /**
     * The longest a request's work holds its key when the filter cannot see it end (default: the
     * instance's max-hold, 15 minutes): see {@link IdempotencyRule#maxHold()}.
     */
    public Builder maxHold(Duration maxHold) {
      Objects.requireNonNull(maxHold, "maxHold must not be null");
      if (maxHold.isZero() || maxHold.isNegative()) {
        throw new IllegalArgumentException("maxHold must be positive, was " + maxHold);
      }
      this.maxHold = maxHold;
      return this;
    }

    /** The HTTP methods the rule covers (default {@code POST}, {@code PATCH}). */
    public Builder methods(String... methods) {
      Set<String> m = new LinkedHashSet<>();
      for (String method : methods) {
        if (method == null
            || method.isBlank()
            || !method
                .strip()
                .chars()
                .allMatch(c -> c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')) {
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

    /** What requests without a caller identity get (default {@link Anonymous#SHARED}). */
    public Builder anonymous(Anonymous anonymous) {
      this.anonymous = Objects.requireNonNull(anonymous, "anonymous must not be null");
      return this;
    }

    /**
     * The {@code Retry-After} of a 409 or 503 (default 1 s, rounded up to whole seconds; a 409
     * never says more than the holder's remaining lease).
     */
    public Builder retryAfter(Duration retryAfter) {
      Objects.requireNonNull(retryAfter, "retryAfter must not be null");
      if (retryAfter.isZero() || retryAfter.isNegative()) {
        throw new IllegalArgumentException("retryAfter must be positive, was " + retryAfter);
      }
      this.retryAfter = retryAfter;
      return this;
    }

    /** The largest request body buffered (default 1 MiB); larger: 413. */
    public Builder maxRequestBodyBytes(int bytes) {
      this.maxRequestBodyBytes = positiveSize(bytes, "maxRequestBodyBytes");
      return this;
    }

    /**
     * The largest response body recorded (default 1 MiB); larger ones are sent unrecorded and the
     * key is released.
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
                  + " is never replayed (cookies, authentication, hop-by-hop and framing headers"
                  + " belong to one response only)");
        }
        set.add(n.strip());
      }
      this.replayedHeaders = set;
      return this;
    }

    /**
     * What decides which parts of a response are recorded (default {@link ResponseSanitizer#NONE}:
     * the status, the {@link #replayedHeaders} and the body).
     */
    public Builder sanitizer(ResponseSanitizer sanitizer) {
      this.sanitizer =
          java.util.Objects.requireNonNull(
              sanitizer, "sanitizer must not be null (use ResponseSanitizer.NONE)");
      return this;
    }

    /** Whether 4xx responses are recorded (default true; 5xx never are). */
    public Builder recordClientErrors(boolean record) {
      this.recordClientErrors = record;
      return this;
    }

    /** The form field carrying a submit token (default {@code _submit_token}). */
    public Builder submitTokenField(String name) {
      this.submitTokenField = fieldName(name, "submitTokenField");
      return this;
    }

    /** The request header carrying a submit token (default {@code Submit-Token}). */
    public Builder submitTokenHeader(String name) {
      this.submitTokenHeader = fieldName(name, "submitTokenHeader");
      return this;
    }

    /**
     * @throws IllegalArgumentException when a submit-token rule has no paths, or failures are
     *     listed to be recorded
     */
    public IdempotencyRule build() {
      if (paths == null) {
        if (key == Key.SUBMIT_TOKEN) {
          throw new IllegalArgumentException(
              "submit-token rule '"
                  + scope
                  + "' has no paths: name the paths its forms post to, e.g. paths(\"/orders\")");
        }
        paths = PathPatterns.of(List.of("/*"), "paths");
      }
      if (buildSettings().recordFailures().length > 0) {
        throw new IllegalArgumentException(
            "rule '"
                + scope
                + "': recordFailures does not apply to web rules (the response is the outcome;"
                + " exceptions and 5xx answers are never recorded)");
      }
      return new IdempotencyRule(this);
    }

    private static int positiveSize(int bytes, String what) {
      if (bytes <= 0) {
        throw new IllegalArgumentException(what + " must be positive, was " + bytes);
      }
      return bytes;
    }

    private static String fieldName(String name, String what) {
      if (name == null
          || name.isBlank()
          || !name.strip().chars().allMatch(c -> c > ' ' && c < 0x7f && c != ':')) {
        throw new IllegalArgumentException(
            what + " must be a field or header name, was '" + name + "'");
      }
      return name.strip();
    }
  }
}
