package dev.idempotent;

import dev.idempotent.internal.NearCacheStore;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the library needs, immutable and validated: the default store and named stores,
 * default durations, the result codec, the clock, the listener, the store-failure policy and key
 * resolver instances.
 *
 * <pre>{@code
 * Idempotency.install(IdempotencyConfig.builder()
 *     .defaultStore(CaffeineIdempotencyStore.builder().build())
 *     .store("orders", jdbcStore)
 *     .defaultTtl(Duration.ofHours(48))
 *     .build());
 * }</pre>
 *
 * With no configuration at all the library reads {@code idempotent.properties} and system
 * properties and finds the store through {@link java.util.ServiceLoader} (see {@link
 * #fromProperties()}).
 */
public final class IdempotencyConfig {
  public static final Duration DEFAULT_TTL = Duration.ofHours(24);
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_MAX_HOLD = Duration.ofMinutes(15);

  /**
   * How long the near cache keeps an entry at most, whatever the record's ttl (see {@link
   * #nearCacheExpireAfter}).
   */
  public static final Duration DEFAULT_NEAR_CACHE_EXPIRE_AFTER = Duration.ofSeconds(30);

  /** The most items of a {@code Flux} result that are recorded (see {@link #fluxMaxItems()}). */
  public static final int DEFAULT_FLUX_MAX_ITEMS = 1_000;

  /** The most bytes of a recorded {@code Flux} result (see {@link #fluxMaxBytes()}). */
  public static final int DEFAULT_FLUX_MAX_BYTES = 1 << 20;

  /** The result codecs the setting {@code idempotent.codec.type} can name. */
  public enum CodecType {
    /**
     * Java serialization, read back only for classes on an allow-list ({@link
     * ResultCodec#javaSerialization}).
     */
    JAVA,
    /**
     * JSON through Jackson 3 when it is on the class path, else Jackson 2 ({@link
     * ResultCodec#jackson}).
     */
    JACKSON,
    /** JSON through Jackson 2 ({@link ResultCodec#jackson2}). */
    JACKSON2,
    /** JSON through Jackson 3 ({@link ResultCodec#jackson3}). */
    JACKSON3
  }

  private final IdempotencyStore defaultStore;
  private final Map<String, IdempotencyStore> stores;
  private final Duration defaultTtl;
  private final Duration defaultLease;
  private final Duration defaultWaitTimeout;
  private final Duration maxHold;
  private final ResultCodec codec;
  private final TimeSource timeSource;
  private final IdempotencyListener listener;
  private final ReplayHook replayHook;
  private final StoreFailurePolicy storeFailurePolicy;
  private final Map<Class<? extends KeyResolver>, KeyResolver> keyResolvers;
  private final boolean requireWoven;
  private final int nearCacheMaximumSize;
  private final Duration nearCacheExpireAfter;
  private final int fluxMaxItems;
  private final int fluxMaxBytes;

  private IdempotencyConfig(Builder b) {
    this.fluxMaxItems = b.fluxMaxItems;
    this.fluxMaxBytes = b.fluxMaxBytes;
    this.nearCacheMaximumSize = b.nearCacheMaximumSize;
    this.nearCacheExpireAfter = b.nearCacheExpireAfter;
    Map<IdempotencyStore, IdempotencyStore> decorated = new IdentityHashMap<>();
    this.defaultStore = decorated(b.defaultStore, b, decorated);
    Map<String, IdempotencyStore> named = new LinkedHashMap<>();
    b.stores.forEach((name, store) -> named.put(name, decorated(store, b, decorated)));
    this.stores = Collections.unmodifiableMap(named);
    this.defaultTtl = b.defaultTtl;
    this.defaultLease = b.defaultLease;
    this.defaultWaitTimeout = b.defaultWaitTimeout;
    this.maxHold = b.maxHold;
    this.codec = b.codec;
    this.timeSource = b.timeSource;
    this.listener = b.listener;
    this.replayHook = b.replayHook;
    this.storeFailurePolicy = b.storeFailurePolicy;
    this.keyResolvers = Collections.unmodifiableMap(new LinkedHashMap<>(b.keyResolvers));
    this.requireWoven = b.requireWoven;
  }

  /** The same store instance, under several names, gets one near cache. */
  private static IdempotencyStore decorated(
      IdempotencyStore store, Builder b, Map<IdempotencyStore, IdempotencyStore> done) {
    return done.computeIfAbsent(
        store,
        s ->
            NearCacheStore.decorate(
                s, b.nearCacheMaximumSize, b.nearCacheExpireAfter, b.timeSource));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every setting of {@code base}, to change a few. */
  public static Builder from(IdempotencyConfig base) {
    return new Builder(base);
  }

  /**
   * The configuration described by {@code idempotent.properties} on the classpath, overridden by
   * system properties of the same names, with the store found through {@link
   * java.util.ServiceLoader}. A backend that cannot be reached is not an error here: the store is
   * then created on first use (one attempt at a time, with a backoff after a failure), and calls
   * meet the outage as store failures under the store-failure policy.
   *
   * @throws IdempotencyConfigurationException naming the bad or missing setting
   */
  public static IdempotencyConfig fromProperties() {
    return dev.idempotent.internal.PropertiesConfigLoader.load();
  }

  /** The store used when {@link Idempotent#store()} is empty. */
  public IdempotencyStore defaultStore() {
    return defaultStore;
  }

  /** Named stores, for {@link Idempotent#store()}. */
  public Map<String, IdempotencyStore> stores() {
    return stores;
  }

  /**
   * The store called {@code name}, or the default store for {@code ""}.
   *
   * @throws IdempotencyConfigurationException when there is no such store
   */
  public IdempotencyStore store(String name) {
    if (name == null || name.isEmpty()) {
      return defaultStore;
    }
    IdempotencyStore s = stores.get(name);
    if (s == null) {
      throw new IdempotencyConfigurationException(
          "unknown store '"
              + name
              + "': registered stores are "
              + stores.keySet()
              + "; register it with IdempotencyConfig.builder().store(\""
              + name
              + "\", store)");
    }
    return s;
  }

  public Duration defaultTtl() {
    return defaultTtl;
  }

  public Duration defaultLease() {
    return defaultLease;
  }

  public Duration defaultWaitTimeout() {
    return defaultWaitTimeout;
  }

  /**
   * The longest a call holds its claim: after that its lease is no longer renewed, and the claim
   * ends with the lease even if the call never finishes.
   */
  public Duration maxHold() {
    return maxHold;
  }

  public ResultCodec codec() {
    return codec;
  }

  public TimeSource timeSource() {
    return timeSource;
  }

  public IdempotencyListener listener() {
    return listener;
  }

  /**
   * What adjusts a replayed value before the caller gets it ({@link ReplayHook#NONE} by default).
   */
  public ReplayHook replayHook() {
    return replayHook;
  }

  public StoreFailurePolicy storeFailurePolicy() {
    return storeFailurePolicy;
  }

  /**
   * Resolver instances registered by class; others are instantiated once with their no-argument
   * constructor.
   */
  public Map<Class<? extends KeyResolver>, KeyResolver> keyResolvers() {
    return keyResolvers;
  }

  /**
   * Whether an {@code @Idempotent} method that was compiled but not woven fails {@link
   * Idempotency#create}, {@link Idempotency#install}, {@link Idempotency#global()} and {@link
   * Idempotency#verify()} instead of being logged as a WARN (property {@code
   * idempotent.require-woven}; default false).
   */
  public boolean requireWoven() {
    return requireWoven;
  }

  /**
   * The most completed outcomes the near cache keeps in this process for each shared store, or 0
   * (the default) when there is no near cache (property {@code idempotent.near-cache.maximum-size};
   * see {@link Builder#nearCache}).
   */
  public int nearCacheMaximumSize() {
    return nearCacheMaximumSize;
  }

  /**
   * The longest the near cache keeps an outcome, whatever the record's ttl: how long another
   * instance may still replay a record deleted where no delete announcement reaches it (property
   * {@code idempotent.near-cache.expire-after}; {@link #DEFAULT_NEAR_CACHE_EXPIRE_AFTER} by
   * default).
   */
  public Duration nearCacheExpireAfter() {
    return nearCacheExpireAfter;
  }

  /**
   * The most items of a {@code Flux} result that are recorded: one that emits more is sent to its
   * subscriber whole but not recorded, and its key is released, so a repeat runs again (property
   * {@code idempotent.flux.max-items}; {@link #DEFAULT_FLUX_MAX_ITEMS} by default).
   */
  public int fluxMaxItems() {
    return fluxMaxItems;
  }

  /**
   * The most bytes a {@code Flux} result's items take recorded: beyond it, as beyond {@link
   * #fluxMaxItems()} (property {@code idempotent.flux.max-bytes}; 1 MiB by default).
   */
  public int fluxMaxBytes() {
    return fluxMaxBytes;
  }

  /** Validating builder; every setter rejects a bad value at once, naming it. */
  public static final class Builder {
    private IdempotencyStore defaultStore;
    private final Map<String, IdempotencyStore> stores = new LinkedHashMap<>();
    private Duration defaultTtl = DEFAULT_TTL;
    private Duration defaultLease = DEFAULT_LEASE;
    private Duration defaultWaitTimeout = DEFAULT_WAIT_TIMEOUT;
    private Duration maxHold = DEFAULT_MAX_HOLD;
    private ResultCodec codec;
    private TimeSource timeSource = TimeSource.system();
    private IdempotencyListener listener = IdempotencyListener.NO_OP;
    private ReplayHook replayHook = ReplayHook.NONE;
    private StoreFailurePolicy storeFailurePolicy = StoreFailurePolicy.FAIL_CLOSED;
    private final Map<Class<? extends KeyResolver>, KeyResolver> keyResolvers =
        new LinkedHashMap<>();
    private boolean requireWoven;
    private int nearCacheMaximumSize;
    private Duration nearCacheExpireAfter = DEFAULT_NEAR_CACHE_EXPIRE_AFTER;
    private int fluxMaxItems = DEFAULT_FLUX_MAX_ITEMS;
    private int fluxMaxBytes = DEFAULT_FLUX_MAX_BYTES;

    private Builder() {}

    private Builder(IdempotencyConfig base) {
      defaultStore = base.defaultStore;
      stores.putAll(base.stores);
      defaultTtl = base.defaultTtl;
      defaultLease = base.defaultLease;
      defaultWaitTimeout = base.defaultWaitTimeout;
      maxHold = base.maxHold;
      codec = base.codec;
      timeSource = base.timeSource;
      listener = base.listener;
      replayHook = base.replayHook;
      storeFailurePolicy = base.storeFailurePolicy;
      keyResolvers.putAll(base.keyResolvers);
      requireWoven = base.requireWoven;
      nearCacheMaximumSize = base.nearCacheMaximumSize;
      nearCacheExpireAfter = base.nearCacheExpireAfter;
      fluxMaxItems = base.fluxMaxItems;
      fluxMaxBytes = base.fluxMaxBytes;
    }

    public Builder defaultStore(IdempotencyStore store) {
      this.defaultStore = Objects.requireNonNull(store, "defaultStore must not be null");
      return this;
    }

    /** Registers a store under {@code name}, for {@code @Idempotent(store = name)}. */
    public Builder store(String name, IdempotencyStore store) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("store name must not be blank");
      }
      stores.put(name, Objects.requireNonNull(store, "store '" + name + "' must not be null"));
      return this;
    }

    public Builder defaultTtl(Duration ttl) {
      this.defaultTtl = positive(ttl, "defaultTtl");
      return this;
    }

    public Builder defaultLease(Duration lease) {
      this.defaultLease = positive(lease, "defaultLease");
      return this;
    }

    public Builder defaultWaitTimeout(Duration waitTimeout) {
      this.defaultWaitTimeout = positive(waitTimeout, "defaultWaitTimeout");
      return this;
    }

    /**
     * The longest a call may hold its claim ({@link #DEFAULT_MAX_HOLD} by default): once a call has
     * held it that long, its lease is no longer renewed, a WARN and a {@link
     * IdempotencyEvent.Type#MAX_HOLD_REACHED} event are emitted, and the claim ends with its lease.
     * Set it above the longest a method may legitimately run.
     */
    public Builder maxHold(Duration maxHold) {
      this.maxHold = positive(maxHold, "maxHold");
      return this;
    }

    public Builder codec(ResultCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec must not be null");
      return this;
    }

    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = Objects.requireNonNull(timeSource, "timeSource must not be null");
      return this;
    }

    public Builder listener(IdempotencyListener listener) {
      this.listener =
          Objects.requireNonNull(
              listener, "listener must not be null (use IdempotencyListener.NO_OP)");
      return this;
    }

    /**
     * Adjusts every replayed value before the caller gets it (see {@link ReplayHook}); default
     * {@link ReplayHook#NONE}.
     */
    public Builder replayHook(ReplayHook hook) {
      this.replayHook =
          Objects.requireNonNull(hook, "replayHook must not be null (use ReplayHook.NONE)");
      return this;
    }

    public Builder storeFailurePolicy(StoreFailurePolicy policy) {
      this.storeFailurePolicy =
          Objects.requireNonNull(policy, "storeFailurePolicy must not be null");
      return this;
    }

    /**
     * Registers a resolver instance, used wherever {@code @Idempotent(keyResolver = its class)}
     * names it.
     */
    public Builder keyResolver(KeyResolver resolver) {
      Objects.requireNonNull(resolver, "keyResolver must not be null");
      keyResolvers.put(resolver.getClass(), resolver);
      return this;
    }

    /** See {@link IdempotencyConfig#requireWoven()}. */
    public Builder requireWoven(boolean require) {
      this.requireWoven = require;
      return this;
    }

    /**
     * Keeps up to {@code maximumSize} completed outcomes of each store of this configuration in
     * this process, so that a repeat is replayed without a round trip to the store; 0 (the default)
     * turns it off. In-process stores (the memory store) are left as they are. What is kept is a
     * completed record the store answered a claim or a read with (so the first repeat in each
     * instance asks the store once), until its ttl ends as the store reported it, or for {@link
     * #nearCacheExpireAfter(Duration)} at most; an in-progress record is never kept; an
     * administrative delete drops it here, and in the other instances when the store announces
     * deletes (the Redis store does). See docs/near-cache.md for exactly what it changes.
     *
     * @param maximumSize 0 for none, or the most entries per store
     */
    public Builder nearCache(int maximumSize) {
      if (maximumSize < 0) {
        throw new IllegalArgumentException(
            "near cache maximum size must be 0 (off) or positive, was " + maximumSize);
      }
      this.nearCacheMaximumSize = maximumSize;
      return this;
    }

    /**
     * The longest the near cache keeps an outcome ({@link
     * IdempotencyConfig#DEFAULT_NEAR_CACHE_EXPIRE_AFTER} by default): bounds how long an instance
     * may replay a record deleted through another instance when no delete announcement reaches it
     * (the JDBC store announces none).
     */
    public Builder nearCacheExpireAfter(Duration expireAfter) {
      this.nearCacheExpireAfter = positive(expireAfter, "nearCacheExpireAfter");
      return this;
    }

    /**
     * The most items and bytes of a {@code Flux} result that are recorded (defaults {@link
     * #DEFAULT_FLUX_MAX_ITEMS} and {@link #DEFAULT_FLUX_MAX_BYTES}); see {@link
     * IdempotencyConfig#fluxMaxItems()}.
     */
    public Builder fluxLimits(int maxItems, int maxBytes) {
      if (maxItems <= 0 || maxBytes <= 0) {
        throw new IllegalArgumentException(
            "flux limits must be positive, were " + maxItems + " items and " + maxBytes + " bytes");
      }
      this.fluxMaxItems = maxItems;
      this.fluxMaxBytes = maxBytes;
      return this;
    }

    /**
     * @throws IdempotencyConfigurationException when no default store is set
     */
    public IdempotencyConfig build() {
      if (defaultStore == null) {
        throw new IdempotencyConfigurationException(
            "no default store: call IdempotencyConfig.builder().defaultStore(store), or add a store"
                + " module such as idempotent-store-memory to the classpath");
      }
      if (codec == null) {
        codec = ResultCodec.javaSerialization();
      }
      return new IdempotencyConfig(this);
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
  }
}
