package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the zero-code configuration: {@code idempotent.properties} from the classpath, overridden
 * by system properties named {@code idempotent.*}; the store from the {@link
 * IdempotencyStoreProvider} that {@code idempotent.store} names, or the only one on the classpath.
 * When the backend cannot be reached, the configuration gets a {@link LazilyCreatedStore} that
 * keeps trying (with a backoff) while calls meet the outage as store failures; a wrong setting is
 * an {@link IdempotencyConfigurationException} at once.
 */
public final class PropertiesConfigLoader {
  public static final String RESOURCE = "idempotent.properties";

  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  /**
   * The stores this class created, by identity: the library closes them, never the stores users
   * pass in.
   */
  private static final Set<IdempotencyStore> CREATED =
      Collections.newSetFromMap(Collections.synchronizedMap(new IdentityHashMap<>()));

  private PropertiesConfigLoader() {}

  public static IdempotencyConfig load() {
    return load(settings(), classLoader());
  }

  /** The merged {@code idempotent.*} settings. */
  public static Map<String, String> settings() {
    Map<String, String> values = new HashMap<>();
    ClassLoader cl = classLoader();
    URL url = cl.getResource(RESOURCE);
    if (url != null) {
      Properties p = new Properties();
      try (InputStream in = url.openStream()) {
        p.load(in);
      } catch (IOException e) {
        throw new IdempotencyConfigurationException(
            "cannot read " + url + ": " + e.getMessage(), e);
      }
      p.stringPropertyNames().forEach(n -> values.put(n, p.getProperty(n)));
    }
    System.getProperties().stringPropertyNames().stream()
        .filter(n -> n.startsWith("idempotent."))
        .forEach(n -> values.put(n, System.getProperty(n)));
    return values;
  }

  static IdempotencyConfig load(Map<String, String> values, ClassLoader cl) {
    StoreSettings settings = StoreSettings.of(values);
    IdempotencyConfig.Builder b = builder(settings);
    b.defaultStore(createStore(settings, cl));
    return b.build();
  }

  /** Which store module keeps the records; unset: the only one on the classpath. */
  public static final Setting<String> STORE =
      Setting.text(
          "idempotent.store",
          null,
          "The store module that keeps the records when several are on the classpath: memory,"
              + " redisson, jdbc or the name of another store module.");

  public static final Setting<Duration> TTL =
      Setting.duration(
          "idempotent.ttl",
          IdempotencyConfig.DEFAULT_TTL,
          "How long a completed outcome is kept and replayed.");

  public static final Setting<Duration> LEASE =
      Setting.duration(
          "idempotent.lease",
          IdempotencyConfig.DEFAULT_LEASE,
          "How long a claim holds a key before another caller may take it over; renewed while the"
              + " call runs.");

  public static final Setting<Duration> WAIT_TIMEOUT =
      Setting.duration(
          "idempotent.wait-timeout",
          IdempotencyConfig.DEFAULT_WAIT_TIMEOUT,
          "How long a repeat waits for the first call with on-in-progress WAIT.");

  public static final Setting<Duration> MAX_HOLD =
      Setting.duration(
          "idempotent.max-hold",
          IdempotencyConfig.DEFAULT_MAX_HOLD,
          "The longest a call may hold its claim; after that its lease is no longer renewed.");

  public static final Setting<IdempotencyConfig.CodecType> CODEC =
      Setting.choice(
          "idempotent.codec.type",
          IdempotencyConfig.CodecType.class,
          IdempotencyConfig.CodecType.JAVA,
          "The result codec: java (Java serialization, checked against an allow-list), jackson"
              + " (JSON through Jackson 3 when it is on the class path, else Jackson 2), jackson2"
              + " or jackson3 (JSON through that Jackson line).");

  /** The spelling of {@link #CODEC} that {@code idempotent.properties} also accepts. */
  static final String CODEC_SHORT = "idempotent.codec";

  public static final Setting<List<String>> CODEC_ALLOW =
      Setting.list(
          "idempotent.codec.allow",
          "Extra class-name patterns the java codec may read back, e.g. com.example.orders.*.");

  public static final Setting<StoreFailurePolicy> ON_STORE_FAILURE =
      Setting.choice(
          "idempotent.on-store-failure",
          StoreFailurePolicy.class,
          StoreFailurePolicy.FAIL_CLOSED,
          "What a call does when the store fails: fail-closed (the call fails with a store"
              + " exception, HTTP 503) or fail-open (the method runs unprotected).");

  public static final Setting<Boolean> REQUIRE_WOVEN =
      Setting.flag(
          "idempotent.require-woven",
          false,
          "Fail when an @Idempotent method that the annotation processor recorded was not woven"
              + " (its calls would run unprotected), instead of logging a warning.");

  public static final Setting<Integer> NEAR_CACHE_MAXIMUM_SIZE =
      Setting.integer(
          "idempotent.near-cache.maximum-size",
          0,
          0,
          Integer.MAX_VALUE,
          "The most completed outcomes kept in this process per shared store, replayed without a"
              + " round trip; 0: no near cache. Not used for the memory store.");

  public static final Setting<Duration> NEAR_CACHE_EXPIRE_AFTER =
      Setting.duration(
          "idempotent.near-cache.expire-after",
          IdempotencyConfig.DEFAULT_NEAR_CACHE_EXPIRE_AFTER,
          "The longest the near cache keeps an outcome, whatever its ttl: how long another"
              + " instance may replay a record deleted where no delete announcement reaches it.");

  public static final Setting<Integer> FLUX_MAX_ITEMS =
      Setting.integer(
          "idempotent.flux.max-items",
          IdempotencyConfig.DEFAULT_FLUX_MAX_ITEMS,
          1,
          Integer.MAX_VALUE,
          "The most items of a Flux result that are recorded; a longer Flux reaches its subscriber"
              + " whole but is not recorded, and its key is released.");

  public static final Setting<Integer> FLUX_MAX_BYTES =
      Setting.integer(
          "idempotent.flux.max-bytes",
          IdempotencyConfig.DEFAULT_FLUX_MAX_BYTES,
          1,
          Integer.MAX_VALUE,
          "The most bytes a Flux result's items take recorded; beyond it, as beyond max-items.");

  /** The settings of the configuration itself (the stores list their own), in the docs' order. */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          STORE,
          TTL,
          LEASE,
          WAIT_TIMEOUT,
          MAX_HOLD,
          CODEC,
          CODEC_ALLOW,
          ON_STORE_FAILURE,
          REQUIRE_WOVEN,
          NEAR_CACHE_MAXIMUM_SIZE,
          NEAR_CACHE_EXPIRE_AFTER,
          FLUX_MAX_ITEMS,
          FLUX_MAX_BYTES);

  /**
   * A builder with every setting of {@code values} except the store.
   *
   * @throws IdempotencyConfigurationException naming the bad setting
   */
  public static IdempotencyConfig.Builder builder(Map<String, String> values) {
    return builder(StoreSettings.of(values));
  }

  /**
   * A builder with every setting of {@link #SETTINGS} from {@code settings} (typed or written)
   * except the store. {@code idempotent.codec} is read as {@code idempotent.codec.type} when only
   * it is written.
   *
   * @throws IdempotencyConfigurationException naming the bad setting
   */
  public static IdempotencyConfig.Builder builder(StoreSettings settings) {
    IdempotencyConfig.Builder b = IdempotencyConfig.builder();
    b.defaultTtl(settings.value(TTL));
    b.defaultLease(settings.value(LEASE));
    b.defaultWaitTimeout(settings.value(WAIT_TIMEOUT));
    b.maxHold(settings.value(MAX_HOLD));
    String[] allow = settings.value(CODEC_ALLOW).toArray(String[]::new);
    switch (codec(settings)) {
      case JAVA -> b.codec(ResultCodec.javaSerialization(allow));
      case JACKSON -> b.codec(ResultCodec.jackson(allow));
      case JACKSON2 -> b.codec(ResultCodec.jackson2(allow));
      case JACKSON3 -> b.codec(ResultCodec.jackson3(allow));
    }
    b.storeFailurePolicy(settings.value(ON_STORE_FAILURE));
    b.requireWoven(settings.value(REQUIRE_WOVEN));
    b.nearCache(settings.value(NEAR_CACHE_MAXIMUM_SIZE));
    b.nearCacheExpireAfter(settings.value(NEAR_CACHE_EXPIRE_AFTER));
    b.fluxLimits(settings.value(FLUX_MAX_ITEMS), settings.value(FLUX_MAX_BYTES));
    return b;
  }

  /**
   * The codec {@code settings} name: {@link #CODEC}, or its short spelling when only it is written.
   */
  public static IdempotencyConfig.CodecType codec(StoreSettings settings) {
    if (!settings.isSet(CODEC)) {
      Optional<String> shortForm = settings.get(CODEC_SHORT);
      if (shortForm.isPresent()) {
        try {
          return CODEC.parse(shortForm.get());
        } catch (IdempotencyConfigurationException e) {
          throw new IdempotencyConfigurationException(
              CODEC_SHORT + e.getMessage().substring(CODEC.name().length()), e);
        }
      }
    }
    return settings.value(CODEC);
  }

  /** The store provider named {@code name} on {@code cl}'s classpath, if there is one. */
  public static Optional<IdempotencyStoreProvider> provider(String name, ClassLoader cl) {
    for (IdempotencyStoreProvider p : ServiceLoader.load(IdempotencyStoreProvider.class, cl)) {
      if (p.name().equals(name)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The store that {@code idempotent.store} names in {@code values} (or the only store module on
   * the classpath), created now, or a {@link LazilyCreatedStore} that keeps trying when its backend
   * cannot be reached. The library closes it ({@link #closeIfCreated}).
   *
   * @throws IdempotencyConfigurationException when no store, or no single store, is configured, or
   *     a setting is bad
   */
  public static IdempotencyStore createStore(Map<String, String> values, ClassLoader cl) {
    return createStore(StoreSettings.of(values), cl);
  }

  /**
   * The store that {@code idempotent.store} names in {@code settings} (typed or written), as {@link
   * #createStore(Map, ClassLoader)}.
   */
  public static IdempotencyStore createStore(StoreSettings settings, ClassLoader cl) {
    Map<String, IdempotencyStoreProvider> providers = new LinkedHashMap<>();
    for (IdempotencyStoreProvider p : ServiceLoader.load(IdempotencyStoreProvider.class, cl)) {
      providers.putIfAbsent(p.name(), p);
    }
    String wanted = settings.value(STORE);
    IdempotencyStoreProvider provider;
    if (wanted != null) {
      provider = providers.get(wanted);
      if (provider == null) {
        throw new IdempotencyConfigurationException(
            "idempotent.store="
                + wanted
                + " but no such store module is on "
                + "the classpath (found: "
                + providers.keySet()
                + "); add idempotent-store-"
                + wanted
                + " to your dependencies");
      }
    } else if (providers.size() == 1) {
      provider = providers.values().iterator().next();
    } else if (providers.isEmpty()) {
      throw new IdempotencyConfigurationException(
          "no idempotency store is configured: add a store module (idempotent-store-memory,"
              + " idempotent-store-redisson or idempotent-store-jdbc) to your dependencies, or"
              + " install one with"
              + " Idempotency.install(IdempotencyConfig.builder().defaultStore(...).build())");
    } else {
      List<String> names = new ArrayList<>(providers.keySet());
      throw new IdempotencyConfigurationException(
          "several store modules are on the classpath "
              + names
              + ": choose one with idempotent.store=<name> in idempotent.properties or"
              + " -Didempotent.store=<name>");
    }
    LazilyCreatedStore deferred = new LazilyCreatedStore(provider, settings);
    IdempotencyStore store;
    try {
      store = deferred.get();
    } catch (IdempotencyConfigurationException e) {
      throw e;
    } catch (RuntimeException unreachable) {
      store =
          deferred; // logged by the store; each call meets it as a store failure until an attempt
      // succeeds
    }
    CREATED.add(store);
    return store;
  }

  /** True when the library created {@code store} from properties (and so closes it itself). */
  public static boolean created(IdempotencyStore store) {
    return CREATED.contains(NearCacheStore.unwrap(store));
  }

  /**
   * Closes {@code store} if the library created it from properties; a store the user made is left
   * alone.
   */
  public static void closeIfCreated(IdempotencyStore store) {
    if (store instanceof NearCacheStore cache) {
      cache.closeCache();
      store = cache.delegate();
    }
    if (CREATED.remove(store)) {
      closeQuietly(store);
    }
  }

  /** Closes every store the library created from properties. */
  public static void closeAllCreated() {
    List<IdempotencyStore> all;
    synchronized (CREATED) {
      all = new ArrayList<>(CREATED);
    }
    all.forEach(PropertiesConfigLoader::closeIfCreated);
  }

  private static void closeQuietly(IdempotencyStore store) {
    try {
      store.close();
    } catch (RuntimeException e) {
      LOG.warn("closing the idempotency store {} failed: {}", store, e.toString());
    }
  }

  private static ClassLoader classLoader() {
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    return cl != null ? cl : PropertiesConfigLoader.class.getClassLoader();
  }
}
