package dev.idempotent.spring;

import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.internal.PropertiesConfigLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotent.*} settings from {@code application.properties} or YAML: the same keys as
 * {@code idempotent.properties} (which is still read, with lower precedence), with Spring Boot's
 * relaxed binding. The one key that differs: the codec is {@code idempotent.codec.type} here
 * ({@code idempotent.codec} cannot be both a value and the parent of {@code idempotent.codec.allow}
 * in Boot); {@code idempotent.properties} accepts both.
 */
@ConfigurationProperties("idempotent")
public class IdempotencyProperties {
  /**
   * The store module that keeps the records when several are on the classpath: memory, redisson or
   * jdbc. An IdempotencyStore bean of the application's wins over this. When unset: Redis (with
   * idempotent-store-redisson and a RedissonClient bean or idempotent.redisson.address or config),
   * else JDBC (with idempotent-store-jdbc and a DataSource bean or idempotent.jdbc.url), else the
   * memory store. Redis and JDBC use the application's RedissonClient or DataSource unless their
   * own address or url is set.
   */
  private Store store;

  /** How long a completed outcome is kept and replayed (default 24h). */
  private Duration ttl;

  /**
   * How long a claim holds a key before another caller may take it over; renewed while the call
   * runs (30s).
   */
  private Duration lease;

  /** How long a repeat waits for the first call with on-in-progress WAIT (10s). */
  private Duration waitTimeout;

  /** The longest a call may hold its claim; after that its lease is no longer renewed (15m). */
  private Duration maxHold;

  /**
   * What a call does when the store fails: fail-closed (the default: the call fails with a store
   * exception, HTTP 503) or fail-open (the method runs unprotected).
   */
  private StoreFailurePolicy onStoreFailure;

  /**
   * Fail start-up when an @Idempotent method that the annotation processor recorded was not woven
   * (its calls would run unprotected), instead of logging a warning (false).
   */
  private Boolean requireWoven;

  /**
   * Create the stores and check that each answers while the application starts, failing start-up
   * with the reason when one cannot be reached. With false, an unreachable store is met by the
   * calls, as store failures.
   */
  private boolean failFast = true;

  private final Codec codec = new Codec();
  private final Redisson redisson = new Redisson();
  private final Jdbc jdbc = new Jdbc();
  private final Memory memory = new Memory();
  private final NearCache nearCache = new NearCache();
  private final ProblemDetails problemDetails = new ProblemDetails();

  /**
   * The web rules of the idempotency filter (idempotent-web), by name: one rule with its settings
   * at the top (paths, exclude-paths, key, methods, scope, anonymous, store, ttl, lease,
   * wait-timeout, on-in-progress, on-duplicate, on-ambiguous-failure, max-hold, retry-after,
   * max-request-body, max-response-body, replayed-headers, record-client-errors,
   * submit-token-field, submit-token-header), or rules (their names, in order) with each one's
   * settings under rules.&lt;name&gt;.; and problem-type-base. The filter is registered when paths
   * or rules is set (docs/web.md).
   */
  private Map<String, String> web = new LinkedHashMap<>();

  /** The store modules {@code idempotent.store} can name. */
  public enum Store {
    /** idempotent-store-memory: records in this process (Caffeine). */
    MEMORY,
    /** idempotent-store-redisson: records in Redis. */
    REDISSON,
    /** idempotent-store-jdbc: records in a database table. */
    JDBC;

    /**
     * The name as the library's settings spell it: {@code memory}, {@code redisson}, {@code jdbc}.
     */
    public String settingValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What a Redis completion does when its replicas did not acknowledge it in time. */
  public enum OnSyncTimeout {
    /** Log a warning; the call succeeds (the default). */
    WARN,
    /**
     * The call fails with IdempotencyStoreException after its method ran (an ambiguous outcome).
     */
    FAIL
  }

  /** The result codecs {@code idempotent.codec.type} can name. */
  public enum CodecType {
    /** Java serialization, read back only for classes on an allow-list (the default). */
    JAVA,
    /**
     * JSON through Jackson 3, else Jackson 2 (on a copy of the application's mapper bean, if any).
     */
    JACKSON
  }

  /** The result codec. */
  public static class Codec {
    /** java (the default: Java serialization, checked against an allow-list) or jackson (JSON). */
    private CodecType type;

    /** Extra class-name patterns the java codec may read back, e.g. com.example.orders.*. */
    private List<String> allow = new ArrayList<>();

    public CodecType getType() {
      return type;
    }

    public void setType(CodecType type) {
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
   * The Redis store created from settings (idempotent.store=redisson with an address or a config
   * file).
   */
  public static class Redisson {
    /** redis://host:port or rediss://host:port (TLS) of a standalone server. */
    private String address;

    /**
     * Path of a Redisson YAML file (Sentinel, Cluster, TLS, credentials, pools), instead of an
     * address.
     */
    private String config;

    /** Password of the server. */
    private String password;

    /** Command and connect timeout (3s). */
    private Duration timeout;

    /** Prefix of the store's Redis keys (idem:); also used on the application's RedissonClient. */
    private String keyPrefix;

    /** Replicas that must acknowledge each write (WAIT); 0 or unset: do not wait. */
    private Integer syncReplicas;

    /** How long to wait for those replicas (1s). */
    private Duration syncTimeout;

    /** What a completion does when its WAIT times out: warn (the default) or fail. */
    private OnSyncTimeout onSyncTimeout;

    public String getAddress() {
      return address;
    }

    public void setAddress(String address) {
      this.address = address;
    }

    public String getConfig() {
      return config;
    }

    public void setConfig(String config) {
      this.config = config;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Integer getSyncReplicas() {
      return syncReplicas;
    }

    public void setSyncReplicas(Integer syncReplicas) {
      this.syncReplicas = syncReplicas;
    }

    public Duration getSyncTimeout() {
      return syncTimeout;
    }

    public void setSyncTimeout(Duration syncTimeout) {
      this.syncTimeout = syncTimeout;
    }

    public OnSyncTimeout getOnSyncTimeout() {
      return onSyncTimeout;
    }

    public void setOnSyncTimeout(OnSyncTimeout onSyncTimeout) {
      this.onSyncTimeout = onSyncTimeout;
    }
  }

  /**
   * The JDBC store. On the application's DataSource only table, create-table, query-timeout and
   * purge-every apply; with url set (and idempotent.store=jdbc) the store opens a pool of its own
   * instead.
   */
  public static class Jdbc {
    /** JDBC URL of a database of its own for the store; unset: the application's DataSource. */
    private String url;

    /** User name for url. */
    private String username;

    /** Password for url. */
    private String password;

    /** Table of the records (idempotency_record). */
    private String table;

    /** Create the table at start-up if it is missing (false). */
    private Boolean createTable;

    /** Connections of the store's own pool, with url (10). */
    private Integer poolSize;

    /** Timeout of each statement (5s). */
    private Duration queryTimeout;

    /** Delete expired records this often, 1000 rows per statement, pausing between them (off). */
    private Duration purgeEvery;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public Boolean getCreateTable() {
      return createTable;
    }

    public void setCreateTable(Boolean createTable) {
      this.createTable = createTable;
    }

    public Integer getPoolSize() {
      return poolSize;
    }

    public void setPoolSize(Integer poolSize) {
      this.poolSize = poolSize;
    }

    public Duration getQueryTimeout() {
      return queryTimeout;
    }

    public void setQueryTimeout(Duration queryTimeout) {
      this.queryTimeout = queryTimeout;
    }

    public Duration getPurgeEvery() {
      return purgeEvery;
    }

    public void setPurgeEvery(Duration purgeEvery) {
      this.purgeEvery = purgeEvery;
    }
  }

  /** The in-memory store. */
  public static class Memory {
    /** The most completed records kept (100000). */
    private Long maximumSize;

    public Long getMaximumSize() {
      return maximumSize;
    }

    public void setMaximumSize(Long maximumSize) {
      this.maximumSize = maximumSize;
    }
  }

  /**
   * The near cache of completed outcomes in front of a shared store (Redis, JDBC); see
   * docs/near-cache.md.
   */
  public static class NearCache {
    /**
     * The most completed outcomes kept in this process per store, replayed without a round trip; 0
     * (the default): no near cache. Not used for the memory store.
     */
    private Integer maximumSize;

    /**
     * The longest an outcome is kept, whatever its ttl: how long another instance may replay a
     * record deleted where no delete announcement reaches it (JDBC) (30s).
     */
    private Duration expireAfter;

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

  /** Spring MVC error responses. */
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
   * These settings as the flat {@code idempotent.*} keys the library reads, over those of {@code
   * idempotent.properties} and system properties.
   */
  public Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>(PropertiesConfigLoader.settings());
    put(s, "store", store);
    put(s, "ttl", ttl);
    put(s, "lease", lease);
    put(s, "wait-timeout", waitTimeout);
    put(s, "max-hold", maxHold);
    put(s, "on-store-failure", onStoreFailure);
    put(s, "require-woven", requireWoven);
    put(s, "codec.type", codec.type);
    if (!codec.allow.isEmpty()) {
      s.put("idempotent.codec.allow", String.join(",", codec.allow));
    }
    put(s, "redisson.address", redisson.address);
    put(s, "redisson.config", redisson.config);
    put(s, "redisson.password", redisson.password);
    put(s, "redisson.timeout", redisson.timeout);
    put(s, "redisson.key-prefix", redisson.keyPrefix);
    put(s, "redisson.sync-replicas", redisson.syncReplicas);
    put(s, "redisson.sync-timeout", redisson.syncTimeout);
    put(s, "redisson.on-sync-timeout", redisson.onSyncTimeout);
    put(s, "jdbc.url", jdbc.url);
    put(s, "jdbc.username", jdbc.username);
    put(s, "jdbc.password", jdbc.password);
    put(s, "jdbc.table", jdbc.table);
    put(s, "jdbc.create-table", jdbc.createTable);
    put(s, "jdbc.pool-size", jdbc.poolSize);
    put(s, "jdbc.query-timeout", jdbc.queryTimeout);
    put(s, "jdbc.purge-every", jdbc.purgeEvery);
    put(s, "memory.maximum-size", memory.maximumSize);
    put(s, "near-cache.maximum-size", nearCache.maximumSize);
    put(s, "near-cache.expire-after", nearCache.expireAfter);
    web.forEach((k, v) -> put(s, "web." + k, v));
    return s;
  }

  /**
   * The web rules' settings ({@code idempotent.web.*}, from these properties and the library's own
   * sources) without their prefix, as {@code HttpIdempotency.Builder#settings} takes them.
   */
  Map<String, String> webSettings() {
    String prefix = "idempotent.web.";
    Map<String, String> web = new LinkedHashMap<>();
    settings()
        .forEach(
            (k, v) -> {
              if (k.startsWith(prefix)) {
                web.put(k.substring(prefix.length()), v);
              }
            });
    return web;
  }

  private static void put(Map<String, String> s, String name, Object value) {
    if (value instanceof Duration d) {
      s.put("idempotent." + name, d.toMillis() + "ms");
    } else if (value instanceof Enum<?> e) {
      // the spelling the library's settings use: FAIL_OPEN is fail-open
      s.put("idempotent." + name, e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    } else if (value != null) {
      s.put("idempotent." + name, value.toString());
    }
  }

  public Store getStore() {
    return store;
  }

  public void setStore(Store store) {
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

  public Redisson getRedisson() {
    return redisson;
  }

  public Jdbc getJdbc() {
    return jdbc;
  }

  public Memory getMemory() {
    return memory;
  }

  public NearCache getNearCache() {
    return nearCache;
  }

  public ProblemDetails getProblemDetails() {
    return problemDetails;
  }

  public Map<String, String> getWeb() {
    return web;
  }

  public void setWeb(Map<String, String> web) {
    this.web = web;
  }
}
