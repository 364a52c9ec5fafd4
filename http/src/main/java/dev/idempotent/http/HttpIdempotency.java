package dev.idempotent.http;

import dev.idempotent.DuplicateRequestException;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.IdempotencyStoreException;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.SubmitTokenException;
import dev.idempotent.SubmitTokens;
import dev.idempotent.http.internal.FormFields;
import dev.idempotent.http.internal.HttpRecordKey;
import dev.idempotent.http.internal.KeyHeader;
import dev.idempotent.http.internal.RuleProperties;
import dev.idempotent.internal.UnrecordedOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP protocol of idempotent requests, independent of any container: the {@code
 * Idempotency-Key} header of draft-ietf-httpapi-idempotency-key-header with whole responses
 * replayed, and one-time submit tokens for HTML forms. The servlet filter and the WebFlux filter
 * are adapters over it: each turns its request into the few values asked for here, runs the
 * application into a response it holds, and writes the {@link HttpResult} back. The rules live here
 * once.
 *
 * <h2>A request, step by step</h2>
 *
 * <ol>
 *   <li>{@link #admit}: the first rule whose methods and paths match takes the request (none: it
 *       passes through untouched). An {@code Idempotency-Key} rule reads the header (more than one,
 *       empty, not printable ASCII or over 255 characters: 400; absent: 400 on a {@link
 *       IdempotencyRule.Key#REQUIRED} rule, else the request passes through); a rule that refuses
 *       anonymous callers answers 400 to one.
 *   <li>The adapter reads the body, at most the rule's limit (larger: 413).
 *   <li>{@link #execute}: the record's key is the method, the caller, the path and the client's key
 *       (see {@code HttpRecordKey}) inside the rule's scope, and the request's fingerprint covers
 *       the method, path, query, {@code Content-Type} and body. The first request runs the
 *       application; its status, replayable headers and body are recorded for the ttl unless the
 *       status is 5xx (or 4xx, per {@link IdempotencyRule#recordClientErrors}), or the body was too
 *       large, in which case the key is released and a retry runs again. A repeat gets the recorded
 *       response; the same key with another request gets 422; a repeat while the first runs gets
 *       409 with {@code Retry-After} (or waits, with {@code WAIT}); a store failure gets 503 with
 *       {@code Retry-After} under the fail-closed policy.
 * </ol>
 *
 * The same key on another path is another request (the path is part of the record's key); the same
 * key on the same path with another query or body is a 422. Immutable and thread-safe.
 */
public final class HttpIdempotency {
  /** The request header carrying the key. */
  public static final String KEY_HEADER = "Idempotency-Key";

  /** The response header marking a replayed response. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** Prefix of the settings in {@code idempotent.properties} and system properties. */
  public static final String PROPERTY_PREFIX = "idempotent.web.";

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent.web");

  private final Idempotency idempotency;
  private final List<IdempotencyRule> rules;
  private final Map<IdempotencyRule, IdempotencyPolicy> policies = new IdentityHashMap<>();
  private final String problemTypeBase;

  /** The submit tokens of each submit-token rule, for the instance they were made over. */
  private volatile Tokens tokens;

  private record Tokens(Idempotency owner, Map<IdempotencyRule, SubmitTokens> byRule) {}

  private HttpIdempotency(Builder b) {
    this.idempotency = b.idempotency;
    this.rules = List.copyOf(b.rules);
    this.problemTypeBase = b.problemTypeBase;
    Set<String> scopes = new HashSet<>();
    for (IdempotencyRule rule : rules) {
      if (!scopes.add(rule.scope())) {
        throw new IllegalArgumentException(
            "two rules have the scope '" + rule.scope() + "': give each rule a scope of its own");
      }
      policies.put(
          rule,
          IdempotencyPolicy.builder(rule.scope())
              .settings(rule.settings())
              .resultType(byte[].class)
              .withoutReplayHook() // its values are encoded responses, not a method's
              .build());
    }
    if (idempotency != null) {
      prepare(idempotency);
    }
  }

  /** A builder with no rules yet. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The protocol the {@code idempotent.web.*} properties describe (see {@link
   * Builder#settings(Map)}), over {@link Idempotency#global()}.
   *
   * @throws IllegalArgumentException naming an unknown setting or a bad value
   */
  public static HttpIdempotency fromProperties() {
    return builder().settings(RuleProperties.fromProperties(PROPERTY_PREFIX)).build();
  }

  /** The rules, in the order they are tried. */
  public List<IdempotencyRule> rules() {
    return rules;
  }

  /** The prefix of every problem's {@code type} URI. */
  public String problemTypeBase() {
    return problemTypeBase;
  }

  /** The instance the calls run on: the one given, else {@link Idempotency#global()}. */
  public Idempotency idempotency() {
    return idempotency != null ? idempotency : Idempotency.global();
  }

  /**
   * Builds every rule's plan on {@code instance} now (its store exists, its scope collides with no
   * other), so that a mistake fails at start-up rather than at the first request.
   *
   * @throws IdempotencyConfigurationException naming the rule and what is wrong
   */
  public void prepare(Idempotency instance) {
    for (IdempotencyRule rule : rules) {
      try {
        instance.prepare(policies.get(rule));
      } catch (IdempotencyConfigurationException e) {
        throw new IdempotencyConfigurationException(
            "web rule '" + rule.scope() + "': " + e.getMessage(), e);
      }
    }
  }

  /** The first rule for a request of {@code method} on {@code path}, if any. */
  public Optional<IdempotencyRule> match(String method, String path) {
    String m = method.toUpperCase(Locale.ROOT);
    for (IdempotencyRule rule : rules) {
      if (rule.matches(m, path)) {
        return Optional.of(rule);
      }
    }
    return Optional.empty();
  }

  /**
   * The first step: whether the request is protected, refused, or passes through, decided from its
   * method, path, headers and caller, before its body is read.
   *
   * @param path the path within the application, decoded
   * @param headers the values of a request header by name (an empty list when it is absent)
   * @param caller the caller's identity, or {@code null} for an anonymous request
   */
  public Admission admit(
      String method, String path, Function<String, List<String>> headers, String caller) {
    String m = method.toUpperCase(Locale.ROOT);
    IdempotencyRule rule = null;
    for (IdempotencyRule r : rules) {
      if (r.matches(m, path)) {
        rule = r;
        break;
      }
    }
    if (rule == null) {
      return Admission.PASS;
    }
    if (caller == null && rule.anonymous() == IdempotencyRule.Anonymous.REFUSE) {
      return Admission.refused(HttpProblem.CALLER_REQUIRED);
    }
    if (rule.key() == IdempotencyRule.Key.SUBMIT_TOKEN) {
      List<String> token = headers.apply(rule.submitTokenHeader());
      String header = token == null || token.isEmpty() ? null : token.get(0).strip();
      return new Admission(
          rule, m, path, caller, header == null || header.isEmpty() ? null : header);
    }
    List<String> values = headers.apply(KEY_HEADER);
    if (values == null || values.isEmpty()) {
      return rule.key() == IdempotencyRule.Key.REQUIRED
          ? Admission.refused(HttpProblem.KEY_MISSING)
          : Admission.PASS;
    }
    try {
      return new Admission(rule, m, path, caller, KeyHeader.parse(values));
    } catch (IllegalArgumentException e) {
      LOG.debug("an Idempotency-Key was refused: {}", e.getMessage());
      return Admission.refused(HttpProblem.KEY_INVALID);
    }
  }

  /**
   * The last step: runs {@code application} at most once per key and says what to send.
   *
   * <p>{@code application} runs the request in the container and returns the response it holds, at
   * once (a stage already complete) or when an asynchronous request completes; it is called only
   * when this request is the one that runs (never for a replay or a problem). What it throws, or
   * the stage fails with, other than the library's exceptions, fails the returned stage as it is
   * (after the key was released): the adapter lets the container answer it.
   *
   * @param admission a protected admission from {@link #admit}
   * @param query the raw query string, or {@code null}
   * @param contentType the request's {@code Content-Type}, or {@code null}
   * @param body the request body, whole
   * @param subject for a submit-token rule, who the token was issued to (the user or the session;
   *     {@code null}: nobody, which no token matches); asked only for such a rule
   */
  public CompletionStage<HttpResult> execute(
      Admission admission,
      String query,
      String contentType,
      byte[] body,
      Supplier<String> subject,
      Supplier<? extends CompletionStage<ApplicationResponse>> application) {
    return run(admission, query, contentType, body, subject, application, false);
  }

  /**
   * {@link #execute} without blocking the calling thread at any step (an event loop's): the token
   * check, the claim, a wait for a key in progress and the recording use the store's non-blocking
   * face. {@code application} is called on the thread that completes the claim (the caller's when
   * the store answers at once).
   */
  public CompletionStage<HttpResult> executeDeferred(
      Admission admission,
      String query,
      String contentType,
      byte[] body,
      Supplier<String> subject,
      Supplier<? extends CompletionStage<ApplicationResponse>> application) {
    return run(admission, query, contentType, body, subject, application, true);
  }

  private CompletionStage<HttpResult> run(
      Admission admission,
      String query,
      String contentType,
      byte[] body,
      Supplier<String> subject,
      Supplier<? extends CompletionStage<ApplicationResponse>> application,
      boolean deferred) {
    if (!admission.isProtected()) {
      throw new IllegalArgumentException("execute needs a protected admission, was " + admission);
    }
    IdempotencyRule rule = admission.rule;
    ApplicationRun applicationRun = new ApplicationRun(rule, admission);
    Supplier<CompletionStage<byte[]>> run =
        () -> {
          CompletionStage<ApplicationResponse> responded;
          try {
            responded = application.get();
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
          return responded.thenApply(applicationRun::record);
        };
    Idempotency instance;
    CompletionStage<byte[]> outcome;
    try {
      instance = idempotency();
      if (rule.key() == IdempotencyRule.Key.SUBMIT_TOKEN) {
        String token = admission.key;
        if (token == null) {
          token = FormFields.first(contentType, body, rule.submitTokenField());
        }
        if (token == null || token.isBlank()) {
          return CompletableFuture.completedFuture(
              HttpResult.problem(HttpProblem.SUBMIT_TOKEN_MISSING, 0));
        }
        String who = subject.get();
        if (who == null) {
          outcome = CompletableFuture.failedFuture(new SubmitTokenException(null));
        } else {
          SubmitTokens tokens = tokens(instance, rule);
          outcome =
              deferred
                  ? tokens.executeDeferred(rule.scope(), who, token.strip(), byte[].class, run)
                  : tokens.executeAsync(rule.scope(), who, token.strip(), byte[].class, run);
        }
      } else {
        IdempotencyPolicy policy = policies.get(rule);
        String key =
            HttpRecordKey.of(admission.method, admission.path, admission.caller, admission.key);
        List<Object> payload =
            List.of(
                admission.method,
                admission.path,
                Objects.toString(query, ""),
                Objects.toString(contentType, ""),
                body);
        outcome =
            deferred
                ? instance.executeDeferred(policy, key, payload, run)
                : instance.executeAsync(policy, key, payload, run);
      }
    } catch (RuntimeException e) {
      outcome = CompletableFuture.failedFuture(e);
    }
    return outcome.handle(
        (recorded, failure) -> {
          if (failure == null) {
            return applicationRun.ran ? HttpResult.sendCaptured() : replay(recorded);
          }
          Throwable cause = unwrap(failure);
          if (cause instanceof NotRecorded || cause instanceof AmbiguousResponse) {
            return HttpResult.sendCaptured();
          }
          if (cause instanceof IdempotencyException e) {
            return answer(rule, e);
          }
          throw failure instanceof CompletionException c ? c : new CompletionException(cause);
        });
  }

  /**
   * A fresh submit token for the form that posts to {@code path}, bound to {@code subject}: the
   * first submit-token rule whose paths match {@code path} gives its scene and settings.
   *
   * @param path the path the form posts to, within the application, e.g. {@code /orders}
   * @param subject the user or session the token is bound to
   * @throws IllegalArgumentException when no submit-token rule covers {@code path}
   */
  public String issueSubmitToken(String path, String subject) {
    Objects.requireNonNull(subject, "subject must not be null: name the user or the session");
    for (IdempotencyRule rule : rules) {
      if (rule.key() == IdempotencyRule.Key.SUBMIT_TOKEN && rule.paths().size() > 0) {
        for (String method : rule.methods()) {
          if (rule.matches(method, path)) {
            Idempotency instance = idempotency();
            return tokens(instance, rule).issue(rule.scope(), subject);
          }
        }
      }
    }
    throw new IllegalArgumentException(
        "no submit-token rule covers the path '"
            + path
            + "': add one (IdempotencyRule.submitTokens(scope).paths(...)) or issue the token for"
            + " the path the form posts to");
  }

  /**
   * The record key a request gets, for an operator who holds a client's {@code Idempotency-Key}:
   * with the rule's store and scope it finds the record through {@link Idempotency#inspect} and
   * {@link Idempotency#delete}.
   *
   * @param method the request's method
   * @param path its path within the application
   * @param caller the caller's identity as the adapter derives it, or {@code null} when anonymous
   * @param idempotencyKey the key the client sent (its value, unquoted)
   * @return the rule that covers the request and the record key, or empty when no rule does
   */
  public Optional<RecordLocation> locate(
      String method, String path, String caller, String idempotencyKey) {
    String m = method.toUpperCase(Locale.ROOT);
    return match(m, path)
        .filter(rule -> rule.key() != IdempotencyRule.Key.SUBMIT_TOKEN)
        .map(
            rule ->
                new RecordLocation(
                    rule.settings().store(),
                    rule.scope(),
                    HttpRecordKey.of(m, path, caller, idempotencyKey)));
  }

  /** Where a request's record lives: the store's name, the scope and the record key. */
  public record RecordLocation(String store, String scope, String key) {
    @Override
    public String toString() {
      return "RecordLocation{store=" + store + ", scope=" + scope + ", key=<redacted>}";
    }
  }

  private SubmitTokens tokens(Idempotency instance, IdempotencyRule rule) {
    Tokens t = tokens;
    if (t == null || t.owner != instance) {
      Map<IdempotencyRule, SubmitTokens> byRule = new IdentityHashMap<>();
      for (IdempotencyRule r : rules) {
        if (r.key() == IdempotencyRule.Key.SUBMIT_TOKEN) {
          byRule.put(
              r, SubmitTokens.builder(instance).settings(r.settings()).withoutReplayHook().build());
        }
      }
      t = new Tokens(instance, byRule);
      tokens = t;
    }
    return t.byRule.get(rule);
  }

  /**
   * The answer to the client of an asynchronous request that timed out while its work goes on: 503
   * {@link HttpProblem#OUTCOME_PENDING} with the rule's {@code Retry-After}. Its key stays claimed.
   */
  public HttpResult outcomePending(IdempotencyRule rule) {
    return HttpResult.problem(
        HttpProblem.OUTCOME_PENDING, retryAfterSeconds(rule.retryAfter(), null));
  }

  private HttpResult replay(byte[] recorded) {
    if (RecordedResponse.isStreamed(recorded)) {
      return HttpResult.problem(HttpProblem.RESPONSE_STREAMED, 0);
    }
    try {
      return HttpResult.replay(RecordedResponse.decode(recorded));
    } catch (RuntimeException e) {
      LOG.error(
          "a recorded response cannot be read back, so the request was answered 500 and not run"
              + " again: {}",
          e.getMessage());
      return HttpResult.problem(HttpProblem.OUTCOME_UNREADABLE, 0);
    }
  }

  /**
   * The answer to {@code e} escaping an application's handler outside the filters (Spring's problem
   * details): the problem and {@code Retry-After} an {@code Idempotency-Key} rule with the default
   * {@link IdempotencyRule#DEFAULT_RETRY_AFTER} answers with; {@link HttpResult#headers} gives its
   * final headers. Nothing is logged here.
   */
  public static HttpResult answer(IdempotencyException e) {
    return answer(false, IdempotencyRule.DEFAULT_RETRY_AFTER, null, e);
  }

  private static HttpResult answer(IdempotencyRule rule, IdempotencyException e) {
    return answer(
        rule.key() == IdempotencyRule.Key.SUBMIT_TOKEN, rule.retryAfter(), rule.scope(), e);
  }

  /** {@code scope} names the rule in the log; {@code null}: nothing is logged. */
  private static HttpResult answer(
      boolean submit, Duration retryAfter, String scope, IdempotencyException e) {
    if (e instanceof IdempotencyInProgressException p) {
      return HttpResult.problem(
          submit ? HttpProblem.SUBMIT_IN_PROGRESS : HttpProblem.IN_PROGRESS,
          retryAfterSeconds(retryAfter, p.leaseRemaining()));
    }
    if (e instanceof DuplicateRequestException) {
      return HttpResult.problem(
          submit ? HttpProblem.ALREADY_SUBMITTED : HttpProblem.ALREADY_PROCESSED, 0);
    }
    HttpProblem problem = HttpProblem.of(e);
    if (e instanceof IdempotencyStoreException || problem == HttpProblem.STORE_UNAVAILABLE) {
      if (scope != null) {
        LOG.warn(
            "the idempotency store failed, so a request to rule '{}' was refused with 503"
                + " (fail-closed): {}",
            scope,
            e.getCause() == null ? e.getMessage() : e.getCause().getClass().getName());
      }
      return HttpResult.problem(problem, retryAfterSeconds(retryAfter, null));
    }
    if (problem == HttpProblem.MISCONFIGURED && scope != null) {
      LOG.error("a request to rule '{}' was answered 500: {}", scope, e.getMessage());
    }
    return HttpResult.problem(problem, 0);
  }

  private static long retryAfterSeconds(Duration retryAfter, Duration leaseRemaining) {
    Duration d = retryAfter;
    if (leaseRemaining != null && !leaseRemaining.isNegative() && leaseRemaining.compareTo(d) < 0) {
      d = leaseRemaining;
    }
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Thrown from the recorded body when the response is not to be recorded: the key is released. */
  private static final class NotRecorded extends UnrecordedOutcome {
    private static final long serialVersionUID = 1L;
  }

  /**
   * Thrown from the recorded body for a 5xx response a rule settles as an ambiguous failure ({@code
   * RECORD} of a response that cannot be recorded as it is, or {@code BLOCK}): the executor settles
   * it as the rule's {@link dev.idempotent.OnAmbiguousFailure} says, and the response is sent.
   */
  private static final class AmbiguousResponse extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AmbiguousResponse() {
      super("the application answered with a server error", null, false, false);
    }
  }

  /**
   * One request's run of the application, in flight: whether it ran, and what of its {@link
   * ApplicationResponse} is recorded.
   */
  private static final class ApplicationRun {
    private final IdempotencyRule rule;
    private final Admission admission;
    private volatile boolean ran;

    ApplicationRun(IdempotencyRule rule, Admission admission) {
      this.rule = rule;
      this.admission = admission;
    }

    byte[] record(ApplicationResponse response) {
      ran = true;
      OnAmbiguousFailure onServerError = rule.settings().onAmbiguousFailure();
      boolean serverError = response.status() >= 500;
      if (serverError && onServerError == OnAmbiguousFailure.BLOCK) {
        throw new AmbiguousResponse();
      }
      if (response.isStreamed()) {
        if (serverError && onServerError == OnAmbiguousFailure.RECORD) {
          throw new AmbiguousResponse();
        }
        if (response.status() >= rule.firstUnrecordedStatus()) {
          throw new NotRecorded();
        }
        // the work ran and its response went out as it flowed: complete the key, replay nothing
        return RecordedResponse.encodeStreamed(response.status());
      }
      if (response.unrecordable() != null) {
        if (serverError && onServerError == OnAmbiguousFailure.RECORD) {
          throw new AmbiguousResponse();
        }
        LOG.warn(
            "the response to {} {} is {}: it was sent unrecorded and the key released, so a retry"
                + " runs again",
            admission.method,
            admission.path,
            response.unrecordable());
        throw new NotRecorded();
      }
      if (response.status() >= rule.firstUnrecordedStatus()
          && !(serverError && onServerError == OnAmbiguousFailure.RECORD)) {
        throw new NotRecorded();
      }
      try {
        RecordedResponse recorded =
            new RecordedResponse(
                response.status(), replayable(response.headers()), response.body());
        if (rule.sanitizer() != ResponseSanitizer.NONE) {
          recorded = sanitized(recorded);
        }
        return recorded.encode();
      } catch (NotRecorded e) {
        throw e;
      } catch (RuntimeException e) {
        LOG.warn(
            "the response to {} {} cannot be recorded ({}): it was sent unrecorded and the key"
                + " released",
            admission.method,
            admission.path,
            e.getMessage());
        throw new NotRecorded();
      }
    }

    /** The rule's sanitiser applied to {@code recorded}, which keeps its status. */
    private RecordedResponse sanitized(RecordedResponse recorded) {
      RecordedResponse out = rule.sanitizer().sanitize(admission.method, admission.path, recorded);
      if (out == null) {
        LOG.debug(
            "the sanitiser records nothing of the response to {} {}: the key is released",
            admission.method,
            admission.path);
        throw new NotRecorded();
      }
      if (out.status() != recorded.status()) {
        throw new IllegalStateException(
            "the sanitiser changed the status from "
                + recorded.status()
                + " to "
                + out.status()
                + "; a repeat must be answered with the first response's status");
      }
      if (out == recorded) {
        return out;
      }
      List<Map.Entry<String, String>> headers = new ArrayList<>(out.headers().size());
      for (Map.Entry<String, String> h : out.headers()) {
        if (!IdempotencyRule.NEVER_REPLAYED.contains(h.getKey())) {
          headers.add(h);
        }
      }
      return headers.size() == out.headers().size()
          ? out
          : new RecordedResponse(out.status(), headers, out.body());
    }

    private List<Map.Entry<String, String>> replayable(List<Map.Entry<String, String>> headers) {
      List<Map.Entry<String, String>> out = new ArrayList<>(headers.size());
      for (Map.Entry<String, String> h : headers) {
        if (rule.replayedHeaders().contains(h.getKey())) {
          out.add(h);
        }
      }
      return out;
    }
  }

  /**
   * The answer of {@link #admit}: the request passes through, is refused with a problem, or is
   * protected by a rule (then its body is read and {@link #execute} runs it).
   */
  public static final class Admission {
    static final Admission PASS = new Admission(null, null, null, null, null, null);

    private final IdempotencyRule rule;
    private final String method;
    private final String path;
    private final String caller;
    private final String key;
    private final HttpProblem problem;

    private Admission(
        IdempotencyRule rule,
        String method,
        String path,
        String caller,
        String key,
        HttpProblem problem) {
      this.rule = rule;
      this.method = method;
      this.path = path;
      this.caller = caller;
      this.key = key;
      this.problem = problem;
    }

    Admission(IdempotencyRule rule, String method, String path, String caller, String key) {
      this(rule, method, path, caller, key, null);
    }

    static Admission refused(HttpProblem problem) {
      return new Admission(null, null, null, null, null, problem);
    }

    /** The request is not protected: let it through untouched. */
    public boolean passesThrough() {
      return rule == null && problem == null;
    }

    /** The request is refused with this problem, or {@code null}. */
    public HttpProblem problem() {
      return problem;
    }

    /** The request is protected: read its body and {@link HttpIdempotency#execute} it. */
    public boolean isProtected() {
      return rule != null;
    }

    /** The rule that protects the request, or {@code null}. */
    public IdempotencyRule rule() {
      return rule;
    }

    @Override
    public String toString() {
      return passesThrough()
          ? "Admission{pass}"
          : problem != null ? "Admission{" + problem + "}" : "Admission{" + rule.scope() + "}";
    }
  }

  /** Validating builder. */
  public static final class Builder {
    private Idempotency idempotency;
    private final List<IdempotencyRule> rules = new ArrayList<>();
    private String problemTypeBase = HttpProblem.DEFAULT_TYPE_BASE;

    private Builder() {}

    /**
     * The instance to run on (its stores, defaults and clock); default {@link
     * Idempotency#global()}, looked up per request. When given, every rule's plan is built at once.
     */
    public Builder idempotency(Idempotency idempotency) {
      this.idempotency = Objects.requireNonNull(idempotency, "idempotency must not be null");
      return this;
    }

    /** Adds a rule; rules are tried in the order added and the first that matches wins. */
    public Builder rule(IdempotencyRule rule) {
      rules.add(Objects.requireNonNull(rule, "rule must not be null"));
      return this;
    }

    /**
     * The prefix of every problem's {@code type} URI (default {@link
     * HttpProblem#DEFAULT_TYPE_BASE}).
     */
    public Builder problemTypeBase(String base) {
      this.problemTypeBase = HttpProblem.checkTypeBase(base);
      return this;
    }

    /**
     * Applies settings by name, as properties ({@code idempotent.web.} removed) or a servlet
     * filter's init-parameters give them: {@code problem-type-base}; {@code rules} (names, in
     * order) with each rule's settings under {@code rules.<name>.}; or, without {@code rules}, one
     * rule whose settings are at the top ({@code paths}, {@code key}, {@code ttl}...), scope {@code
     * http} unless {@code scope} says otherwise. See {@code docs/web.md} for every setting.
     *
     * @throws IllegalArgumentException naming an unknown setting or a bad value
     */
    public Builder settings(Map<String, String> values) {
      RuleProperties.Parsed parsed = RuleProperties.parse(values);
      if (parsed.problemTypeBase() != null) {
        problemTypeBase(parsed.problemTypeBase());
      }
      rules.addAll(parsed.rules());
      return this;
    }

    /**
     * @throws IllegalArgumentException when there is no rule, two rules share a scope, or (with an
     *     instance given) a rule's store or scope is wrong
     */
    public HttpIdempotency build() {
      if (rules.isEmpty()) {
        throw new IllegalArgumentException(
            "no rule: add one, e.g. rule(IdempotencyRule.builder(\"orders-api\").paths(\"/api/*\")"
                + ".build()), or set idempotent.web.paths");
      }
      return new HttpIdempotency(this);
    }
  }
}
