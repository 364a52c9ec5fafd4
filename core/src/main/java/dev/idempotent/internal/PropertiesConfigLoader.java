package dev.idempotent.internal;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.ResultCodec;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.StoreSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    IdempotencyConfig.Builder b = builder(values);
    b.defaultStore(createStore(values, cl));
    return b.build();
  }

  /**
   * A builder with every setting of {@code values} except the store: the durations, the codec
   * ({@code idempotent.codec.type}, or {@code idempotent.codec} as written in {@code
   * idempotent.properties}, with {@code idempotent.codec.allow}), the store-failure policy and the
   * near cache ({@code idempotent.near-cache.maximum-size}, {@code
   * idempotent.near-cache.expire-after}).
   *
   * @throws IdempotencyConfigurationException naming the bad setting
   */
  public static IdempotencyConfig.Builder builder(Map<String, String> values) {
    StoreSettings settings = StoreSettings.of(values);
    IdempotencyConfig.Builder b = IdempotencyConfig.builder();
    try {
      settings.duration("idempotent.ttl").ifPresent(b::defaultTtl);
      settings.duration("idempotent.lease").ifPresent(b::defaultLease);
      settings.duration("idempotent.wait-timeout").ifPresent(b::defaultWaitTimeout);
      settings.duration("idempotent.max-hold").ifPresent(b::maxHold);
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException(e.getMessage(), e);
    }
    String[] allow =
        settings.get("idempotent.codec.allow").map(v -> v.split("\\s*,\\s*")).orElse(new String[0]);
    String codecKey =
        settings.get("idempotent.codec.type").isPresent()
            ? "idempotent.codec.type"
            : "idempotent.codec";
    String codec = settings.get(codecKey).orElse("java");
    switch (codec) {
      case "java" -> b.codec(ResultCodec.javaSerialization(allow));
      case "jackson" -> b.codec(ResultCodec.jackson());
      default ->
          throw new IdempotencyConfigurationException(
              codecKey + "=" + codec + " is not a codec: use java (the default) or jackson");
    }
    String policy = settings.get("idempotent.on-store-failure").orElse("fail-closed");
    switch (policy) {
      case "fail-closed" -> b.storeFailurePolicy(StoreFailurePolicy.FAIL_CLOSED);
      case "fail-open" -> b.storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN);
      default ->
          throw new IdempotencyConfigurationException(
              "idempotent.on-store-failure="
                  + policy
                  + " is not a policy: use fail-closed (the default) or fail-open");
    }
    String requireWoven = settings.get("idempotent.require-woven").orElse("false").trim();
    if (!requireWoven.equals("true") && !requireWoven.equals("false")) {
      throw new IdempotencyConfigurationException(
          "idempotent.require-woven="
              + requireWoven
              + " is not a boolean: use true or false (the default)");
    }
    b.requireWoven(Boolean.parseBoolean(requireWoven));
    settings
        .get("idempotent.near-cache.maximum-size")
        .ifPresent(
            v -> {
              int size;
              try {
                size = Integer.parseInt(v);
              } catch (NumberFormatException e) {
                size = -1;
              }
              if (size < 0) {
                throw new IdempotencyConfigurationException(
                    "idempotent.near-cache.maximum-size="
                        + v
                        + " is not a size: use 0 (no near cache, the default) or the most completed"
                        + " outcomes to keep in memory, e.g. 10000");
              }
              b.nearCache(size);
            });
    try {
      settings.duration("idempotent.near-cache.expire-after").ifPresent(b::nearCacheExpireAfter);
    } catch (IllegalArgumentException e) {
      throw new IdempotencyConfigurationException(e.getMessage(), e);
    }
    b.fluxLimits(
        positive(settings, "idempotent.flux.max-items", IdempotencyConfig.DEFAULT_FLUX_MAX_ITEMS),
        positive(settings, "idempotent.flux.max-bytes", IdempotencyConfig.DEFAULT_FLUX_MAX_BYTES));
    return b;
  }

  private static int positive(StoreSettings settings, String name, int otherwise) {
    String v = settings.get(name).orElse(null);
    if (v == null) {
      return otherwise;
    }
    try {
      int n = Integer.parseInt(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IdempotencyConfigurationException(
        name + "=" + v + " is not a positive whole number (default " + otherwise + ")");
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

  private static IdempotencyStore createStore(StoreSettings settings, ClassLoader cl) {
    Map<String, IdempotencyStoreProvider> providers = new LinkedHashMap<>();
    for (IdempotencyStoreProvider p : ServiceLoader.load(IdempotencyStoreProvider.class, cl)) {
      providers.putIfAbsent(p.name(), p);
    }
    String wanted = settings.get("idempotent.store").orElse(null);
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
