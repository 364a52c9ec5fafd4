package dev.idempotent.spring;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.spi.Setting;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.util.unit.DataSize;

/**
 * One web rule's settings, typed; {@link #toRule} builds the {@link IdempotencyRule} from them with
 * the rule's own builder, which checks each value. An unset setting (null) is the builder's default
 * (docs/web.md lists them). The names are those of the web rule settings everywhere else ({@code
 * RuleProperties.RULE_SETTINGS}); a test checks that both lists agree.
 */
public class WebRuleProperties {
  /** The scope of every record of the rule (http for the rule at the top, else the rule's name). */
  private String scope;

  /**
   * Where a request's key comes from: optional (the Idempotency-Key header; without one a request
   * passes unprotected), required (without one it is answered 400) or submit-token.
   */
  private IdempotencyRule.Key key;

  /**
   * The paths of the rule (servlet URL patterns: /orders, /api/*, *.do; default /* for an
   * Idempotency-Key rule); setting it (or a rule under rules) registers the idempotency filter.
   */
  private List<String> paths;

  /** Paths the rule leaves alone, although its paths cover them. */
  private List<String> excludePaths;

  /** The HTTP methods the rule covers (POST, PATCH). */
  private List<String> methods;

  /**
   * What requests without a caller identity may do: shared (protected in one shared key space, the
   * default) or refuse (answered 400).
   */
  private IdempotencyRule.Anonymous anonymous;

  /**
   * The named store (an IdempotencyStore bean's name) of the rule's records; unset: the default
   * store.
   */
  private String store;

  /** How long a completed response is kept and replayed; unset: idempotent.ttl. */
  private Duration ttl;

  /**
   * How long a request's claim holds its key before another may take it over; unset:
   * idempotent.lease.
   */
  private Duration lease;

  /** How long a repeat waits with on-in-progress=wait; unset: idempotent.wait-timeout. */
  private Duration waitTimeout;

  /**
   * What a repeat gets while the first request runs: reject (409 with Retry-After, the default) or
   * wait (for the first one's response, then replay it).
   */
  private OnInProgress onInProgress;

  /**
   * What a repeat gets after the first request completed: replay (its recorded response, the
   * default) or reject (409).
   */
  private OnDuplicate onDuplicate;

  /**
   * What a 5xx answer or an exception leaves behind: release (a retry runs again, the default),
   * record (every repeat gets the same answer) or block (every repeat gets 409 until the ttl ends
   * or the record is deleted).
   */
  private OnAmbiguousFailure onAmbiguousFailure;

  /** The longest a request may hold its claim; unset: idempotent.max-hold. */
  private Duration maxHold;

  /** The Retry-After of a 409 (never more than the holder's lease) or a 503 (1s). */
  private Duration retryAfter;

  /** The largest request body (1MB); a larger one gets 413. */
  private DataSize maxRequestBody;

  /**
   * The largest response that is recorded (1MB); a larger one is sent whole but not recorded, and
   * the key is released.
   */
  private DataSize maxResponseBody;

  /** The response headers that are recorded and replayed. */
  private List<String> replayedHeaders;

  /** Whether 4xx answers are recorded and replayed (true; 5xx never are). */
  private Boolean recordClientErrors;

  /** The form field that carries a submit token (_submit_token). */
  private String submitTokenField;

  /** The header that carries a submit token (Submit-Token). */
  private String submitTokenHeader;

  /**
   * The rule these settings describe.
   *
   * @param name the rule's name, its scope unless {@link #getScope()} is set
   * @param prefix where these settings are bound, for messages ({@code
   *     idempotent.web.rules.orders})
   * @throws IdempotencyConfigurationException naming the property and what is wrong with it
   */
  IdempotencyRule toRule(String name, String prefix) {
    String ruleScope = scope == null || scope.isBlank() ? name : scope.strip();
    IdempotencyRule.Builder r;
    try {
      r =
          key == IdempotencyRule.Key.SUBMIT_TOKEN
              ? IdempotencyRule.submitTokens(ruleScope)
              : IdempotencyRule.builder(ruleScope);
    } catch (RuntimeException e) {
      throw new IdempotencyConfigurationException(
          prefix + ".scope=" + ruleScope + ": " + e.getMessage(), e);
    }
    if (key != IdempotencyRule.Key.SUBMIT_TOKEN) {
      set(prefix, "key", key, r::key);
    }
    set(prefix, "paths", paths, v -> r.paths(v.toArray(String[]::new)));
    set(prefix, "exclude-paths", excludePaths, v -> r.excludePaths(v.toArray(String[]::new)));
    set(prefix, "methods", methods, v -> r.methods(v.toArray(String[]::new)));
    set(prefix, "anonymous", anonymous, r::anonymous);
    set(prefix, "store", store, r::store);
    set(prefix, "ttl", ttl, r::ttl);
    set(prefix, "lease", lease, r::lease);
    set(prefix, "wait-timeout", waitTimeout, r::waitTimeout);
    set(prefix, "on-in-progress", onInProgress, r::onInProgress);
    set(prefix, "on-duplicate", onDuplicate, r::onDuplicate);
    set(prefix, "on-ambiguous-failure", onAmbiguousFailure, r::onAmbiguousFailure);
    set(prefix, "max-hold", maxHold, r::maxHold);
    set(prefix, "retry-after", retryAfter, r::retryAfter);
    set(prefix, "max-request-body", maxRequestBody, v -> r.maxRequestBodyBytes(bytes(v)));
    set(prefix, "max-response-body", maxResponseBody, v -> r.maxResponseBodyBytes(bytes(v)));
    set(
        prefix,
        "replayed-headers",
        replayedHeaders,
        v -> r.replayedHeaders(v.toArray(String[]::new)));
    set(prefix, "record-client-errors", recordClientErrors, r::recordClientErrors);
    set(prefix, "submit-token-field", submitTokenField, r::submitTokenField);
    set(prefix, "submit-token-header", submitTokenHeader, r::submitTokenHeader);
    try {
      return r.build();
    } catch (RuntimeException e) {
      throw new IdempotencyConfigurationException(
          "web rule "
              + prefix
              + ": "
              + e.getMessage()
              + "; fix the rule's settings under "
              + prefix,
          e);
    }
  }

  /** Whether any setting of the rule is given. */
  boolean isEmpty() {
    return scope == null
        && key == null
        && paths == null
        && excludePaths == null
        && methods == null
        && anonymous == null
        && store == null
        && ttl == null
        && lease == null
        && waitTimeout == null
        && onInProgress == null
        && onDuplicate == null
        && onAmbiguousFailure == null
        && maxHold == null
        && retryAfter == null
        && maxRequestBody == null
        && maxResponseBody == null
        && replayedHeaders == null
        && recordClientErrors == null
        && submitTokenField == null
        && submitTokenHeader == null;
  }

  private static <T> void set(String prefix, String name, T value, Consumer<T> setter) {
    if (value == null) {
      return;
    }
    try {
      setter.accept(value);
    } catch (RuntimeException e) {
      throw new IdempotencyConfigurationException(
          prefix + "." + name + "=" + Setting.spelling(value) + ": " + e.getMessage(), e);
    }
  }

  private static int bytes(DataSize size) {
    long n = size.toBytes();
    if (n <= 0 || n > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("write a size from 1B to 2047MB, e.g. 1MB");
    }
    return (int) n;
  }

  public String getScope() {
    return scope;
  }

  public void setScope(String scope) {
    this.scope = scope;
  }

  public IdempotencyRule.Key getKey() {
    return key;
  }

  public void setKey(IdempotencyRule.Key key) {
    this.key = key;
  }

  public List<String> getPaths() {
    return paths;
  }

  public void setPaths(List<String> paths) {
    this.paths = paths;
  }

  public List<String> getExcludePaths() {
    return excludePaths;
  }

  public void setExcludePaths(List<String> excludePaths) {
    this.excludePaths = excludePaths;
  }

  public List<String> getMethods() {
    return methods;
  }

  public void setMethods(List<String> methods) {
    this.methods = methods;
  }

  public IdempotencyRule.Anonymous getAnonymous() {
    return anonymous;
  }

  public void setAnonymous(IdempotencyRule.Anonymous anonymous) {
    this.anonymous = anonymous;
  }

  public String getStore() {
    return store;
  }

  public void setStore(String store) {
    this.store = store;
  }

  public Duration getTtl() {
    return ttl;
  }

  public void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public Duration getWaitTimeout() {
    return waitTimeout;
  }

  public void setWaitTimeout(Duration waitTimeout) {
    this.waitTimeout = waitTimeout;
  }

  public OnInProgress getOnInProgress() {
    return onInProgress;
  }

  public void setOnInProgress(OnInProgress onInProgress) {
    this.onInProgress = onInProgress;
  }

  public OnDuplicate getOnDuplicate() {
    return onDuplicate;
  }

  public void setOnDuplicate(OnDuplicate onDuplicate) {
    this.onDuplicate = onDuplicate;
  }

  public OnAmbiguousFailure getOnAmbiguousFailure() {
    return onAmbiguousFailure;
  }

  public void setOnAmbiguousFailure(OnAmbiguousFailure onAmbiguousFailure) {
    this.onAmbiguousFailure = onAmbiguousFailure;
  }

  public Duration getMaxHold() {
    return maxHold;
  }

  public void setMaxHold(Duration maxHold) {
    this.maxHold = maxHold;
  }

  public Duration getRetryAfter() {
    return retryAfter;
  }

  public void setRetryAfter(Duration retryAfter) {
    this.retryAfter = retryAfter;
  }

  public DataSize getMaxRequestBody() {
    return maxRequestBody;
  }

  public void setMaxRequestBody(DataSize maxRequestBody) {
    this.maxRequestBody = maxRequestBody;
  }

  public DataSize getMaxResponseBody() {
    return maxResponseBody;
  }

  public void setMaxResponseBody(DataSize maxResponseBody) {
    this.maxResponseBody = maxResponseBody;
  }

  public List<String> getReplayedHeaders() {
    return replayedHeaders;
  }

  public void setReplayedHeaders(List<String> replayedHeaders) {
    this.replayedHeaders = replayedHeaders;
  }

  public Boolean getRecordClientErrors() {
    return recordClientErrors;
  }

  public void setRecordClientErrors(Boolean recordClientErrors) {
    this.recordClientErrors = recordClientErrors;
  }

  public String getSubmitTokenField() {
    return submitTokenField;
  }

  public void setSubmitTokenField(String submitTokenField) {
    this.submitTokenField = submitTokenField;
  }

  public String getSubmitTokenHeader() {
    return submitTokenHeader;
  }

  public void setSubmitTokenHeader(String submitTokenHeader) {
    this.submitTokenHeader = submitTokenHeader;
  }
}
