package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.http.HttpIdempotency;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotent.*} settings of the library itself, typed: each one is defined once in core
 * ({@code PropertiesConfigLoader.SETTINGS}: name, type, default, check, description), and the
 * starter's tests check these fields, their generated metadata and the docs against those
 * definitions. The stores' settings are bound by each store's auto-configuration ({@code
 * idempotent.redisson.*}, {@code idempotent.jdbc.*}, {@code idempotent.memory.*}), the web rules by
 * {@link Web}. {@code idempotent.properties} on the classpath is read as Boot's property source of
 * lowest precedence.
 */
@ConfigurationProperties("idempotent")
public class IdempotencyProperties {
  /**
   * The store module that keeps the records when several are on the classpath: memory, redisson,
   * jdbc or the name of another store module.
   */
  private String store;

  /** How long a completed outcome is kept and replayed. */
  private Duration ttl = Duration.ofHours(24);

  /**
   * How long a claim holds a key before another caller may take it over; renewed while the call
   * runs.
   */
  private Duration lease = Duration.ofSeconds(30);

  /** How long a repeat waits for the first call with on-in-progress WAIT. */
  private Duration waitTimeout = Duration.ofSeconds(10);

  /** The longest a call may hold its claim; after that its lease is no longer renewed. */
  private Duration maxHold = Duration.ofMinutes(15);

  /**
   * What a call does when the store fails: fail-closed (the call fails with a store exception, HTTP
   * 503) or fail-open (the method runs unprotected).
   */
  private StoreFailurePolicy onStoreFailure = StoreFailurePolicy.FAIL_CLOSED;

  /**
   * Fail when an @Idempotent method that the annotation processor recorded was not woven (its calls
   * would run unprotected), instead of logging a warning.
   */
  private Boolean requireWoven = false;

  /**
   * Create the stores and check that each answers while the application starts, failing start-up
   * with the reason when one cannot be reached. With false, an unreachable store is met by the
   * calls, as store failures.
   */
  private boolean failFast = true;

  private final Codec codec = new Codec();
  private final NearCache nearCache = new NearCache();
  private final Flux flux = new Flux();
  private final ProblemDetails problemDetails = new ProblemDetails();
  private final Web web = new Web();

  /** The result codec. */
  public static class Codec {
    /**
     * The result codec: java (Java serialization, checked against an allow-list) or jackson (JSON).
     */
    private IdempotencyConfig.CodecType type = IdempotencyConfig.CodecType.JAVA;

    /** Extra class-name patterns the java codec may read back, e.g. com.example.orders.*. */
    private List<String> allow = new ArrayList<>();

    public IdempotencyConfig.CodecType getType() {
      return type;
    }

    public void setType(IdempotencyConfig.CodecType type) {
      this.type = type;
    }

    public List<String> getAllow() {
      return allow;
    }

    public void setAllow(List<String> allow) {
      this.allow = allow;
    }
  }

  /**
   * The near cache of completed outcomes in front of a shared store (Redis, JDBC); see
   * docs/near-cache.md.
   */
  public static class NearCache {
    /**
     * The most completed outcomes kept in this process per shared store, replayed without a round
     * trip; 0: no near cache. Not used for the memory store.
     */
    private Integer maximumSize = 0;

    /**
     * The longest the near cache keeps an outcome, whatever its ttl: how long another instance may
     * replay a record deleted where no delete announcement reaches it.
     */
    private Duration expireAfter = Duration.ofSeconds(30);

    public Integer getMaximumSize() {
      return maximumSize;
    }

    public void setMaximumSize(Integer maximumSize) {
      this.maximumSize = maximumSize;
    }

    public Duration getExpireAfter() {
      return expireAfter;
    }

    public void setExpireAfter(Duration expireAfter) {
      this.expireAfter = expireAfter;
    }
  }

  /** The recording of Flux results (docs/reactive.md). */
  public static class Flux {
    /**
     * The most items of a Flux result that are recorded; a longer Flux reaches its subscriber whole
     * but is not recorded, and its key is released.
     */
    private Integer maxItems = 1000;

    /** The most bytes a Flux result's items take recorded; beyond it, as beyond max-items. */
    private Integer maxBytes = 1048576;

    public Integer getMaxItems() {
      return maxItems;
    }

    public void setMaxItems(Integer maxItems) {
      this.maxItems = maxItems;
    }

    public Integer getMaxBytes() {
      return maxBytes;
    }

    public void setMaxBytes(Integer maxBytes) {
      this.maxBytes = maxBytes;
    }
  }

  /** Spring MVC and WebFlux error responses. */
  public static class ProblemDetails {
    /**
     * Answer an IdempotencyException that escapes a controller with an RFC 9457 problem detail of
     * its HTTP status (409 with Retry-After, 422, 400, 503), unless the application handles the
     * exception itself.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /**
   * The web rules of the idempotency filters (idempotent-web, idempotent-webflux): one rule with
   * its settings at the top (scope http), or named rules under rules.&lt;name&gt;; docs/web.md.
   */
  public static class Web extends WebRuleProperties {
    /** The scope of the one rule given at the top, unless it sets its own. */
    static final String TOP_RULE_SCOPE = "http";

    /**
     * Named rules, each with its own settings, tried in the order of idempotent.web.order, else in
     * the order they are declared; a rule's scope is its name unless it sets one.
     */
    private Map<String, WebRuleProperties> rules = new LinkedHashMap<>();

    /**
     * The names of the rules in the order they are tried. Needed when the rules come from more than
     * one property source (environment variables, several files), whose order is not the
     * declaration's.
     */
    private List<String> order = new ArrayList<>();

    /** The prefix of every problem type URI the filters answer with. */
    private String problemTypeBase;

    /**
     * The protocol of these rules over {@code idempotency}.
     *
     * @throws IdempotencyConfigurationException naming the property that is wrong
     */
    public HttpIdempotency protocol(Idempotency idempotency) {
      HttpIdempotency.Builder b = HttpIdempotency.builder().idempotency(idempotency);
      if (problemTypeBase != null && !problemTypeBase.isBlank()) {
        b.problemTypeBase(problemTypeBase.strip());
      }
      if (rules.isEmpty()) {
        if (!order.isEmpty()) {
          throw new IdempotencyConfigurationException(
              "idempotent.web.order="
                  + String.join(",", order)
                  + " names rules, but no rule is"
                  + " given: give each rule's settings under idempotent.web.rules.<name>.");
        }
        if (!isEmpty()) {
          b.rule(toRule(TOP_RULE_SCOPE, "idempotent.web"));
        }
        return b.build();
      }
      if (!isEmpty()) {
        throw new IdempotencyConfigurationException(
            "idempotent.web has the settings of a rule at the top beside idempotent.web.rules:"
                + " move them under idempotent.web.rules.<name>.");
      }
      List<String> names = order.isEmpty() ? new ArrayList<>(rules.keySet()) : order;
      if (!new LinkedHashSet<>(names).equals(new LinkedHashSet<>(rules.keySet()))
          || names.size() != rules.size()) {
        throw new IdempotencyConfigurationException(
            "idempotent.web.order="
                + String.join(",", order)
                + " must name each rule of idempotent.web.rules once, "
                + rules.keySet()
                + ": list them all in the order they are tried");
      }
      for (String name : names) {
        b.rule(rules.get(name).toRule(name, "idempotent.web.rules." + name));
      }
      return b.build();
    }

    public Map<String, WebRuleProperties> getRules() {
      return rules;
    }

    public void setRules(Map<String, WebRuleProperties> rules) {
      this.rules = rules;
    }

    public List<String> getOrder() {
      return order;
    }

    public void setOrder(List<String> order) {
      this.order = order;
    }

    public String getProblemTypeBase() {
      return problemTypeBase;
    }

    public void setProblemTypeBase(String problemTypeBase) {
      this.problemTypeBase = problemTypeBase;
    }
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

  public Duration getMaxHold() {
    return maxHold;
  }

  public void setMaxHold(Duration maxHold) {
    this.maxHold = maxHold;
  }

  public StoreFailurePolicy getOnStoreFailure() {
    return onStoreFailure;
  }

  public void setOnStoreFailure(StoreFailurePolicy onStoreFailure) {
    this.onStoreFailure = onStoreFailure;
  }

  public Boolean getRequireWoven() {
    return requireWoven;
  }

  public void setRequireWoven(Boolean requireWoven) {
    this.requireWoven = requireWoven;
  }

  public boolean isFailFast() {
    return failFast;
  }

  public void setFailFast(boolean failFast) {
    this.failFast = failFast;
  }

  public Codec getCodec() {
    return codec;
  }

  public NearCache getNearCache() {
    return nearCache;
  }

  public Flux getFlux() {
    return flux;
  }

  public ProblemDetails getProblemDetails() {
    return problemDetails;
  }

  public Web getWeb() {
    return web;
  }
}
