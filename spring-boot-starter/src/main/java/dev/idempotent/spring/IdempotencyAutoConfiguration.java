package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.KeyResolver;
import dev.idempotent.ResultCodec;
import dev.idempotent.TimeSource;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.micrometer.MicrometerIdempotencyListener;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.Installation;
import dev.idempotent.spring.internal.Listeners;
import dev.idempotent.spring.internal.StoreSelection;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Installs the {@link Idempotency} that every woven {@code @Idempotent} method uses (beans or not),
 * from the {@code idempotent.*} properties and the application's beans, checks its stores at
 * start-up and shuts it down with the context.
 *
 * <ul>
 *   <li>The default store: the application's {@link IdempotencyStore} bean (the {@code @Primary}
 *       one when there are several); else {@code idempotent.store} with its settings; else a store
 *       on the application's {@code RedissonClient}; else on its {@code DataSource}, joined to
 *       Spring-managed transactions; else the memory store. Every {@code IdempotencyStore} bean is
 *       also a named store for {@code @Idempotent(store = "beanName")}.
 *   <li>{@link KeyResolver} beans serve {@code @Idempotent(keyResolver = TheirClass.class)}; {@link
 *       IdempotencyListener} beans receive the events, and with a {@link MeterRegistry} bean the
 *       {@link MicrometerIdempotencyListener} too; a {@link ResultCodec} bean replaces the codec
 *       (with {@code idempotent.codec.type=jackson}, the jackson codec works on a copy of the
 *       application's Jackson 2 {@code ObjectMapper} bean, if it has one) and a {@link TimeSource}
 *       bean the clock.
 *   <li>An {@link IdempotencyConfig} bean of the application's replaces all of this: it is
 *       installed as it is.
 * </ul>
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.redisson.spring.starter.RedissonAutoConfiguration",
      "org.redisson.spring.starter.RedissonAutoConfigurationV2"
    })
@EnableConfigurationProperties(IdempotencyProperties.class)
public class IdempotencyAutoConfiguration {
  /**
   * The store {@link #idempotencyStore} built, which this configuration closes with the context.
   */
  private volatile IdempotencyStore built;

  /** The default store when the application defines none. */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(IdempotencyStore.class)
  public IdempotencyStore idempotencyStore(
      IdempotencyProperties properties, ListableBeanFactory beans) {
    built =
        StoreSelection.select(
            properties.settings(), beans, IdempotencyAutoConfiguration.class.getClassLoader());
    return built;
  }

  /** The configuration that is installed; an application bean of this type wins. */
  @Bean
  @ConditionalOnMissingBean(IdempotencyConfig.class)
  public IdempotencyConfig idempotencyConfig(
      IdempotencyProperties properties,
      ListableBeanFactory beans,
      ObjectProvider<IdempotencyStore> stores,
      ObjectProvider<KeyResolver> keyResolvers,
      ObjectProvider<IdempotencyListener> listeners,
      ObjectProvider<ResultCodec> codec,
      ObjectProvider<TimeSource> timeSource,
      ObjectProvider<MeterRegistry> meterRegistry) {
    IdempotencyConfig.Builder b = PropertiesConfigLoader.builder(properties.settings());
    Map<String, IdempotencyStore> named = beans.getBeansOfType(IdempotencyStore.class);
    IdempotencyStore defaultStore = stores.getIfUnique();
    if (defaultStore == null) {
      throw new IdempotencyConfigurationException(
          "several IdempotencyStore beans "
              + named.keySet()
              + " and none is @Primary: mark the default store's bean @Primary (the others stay"
              + " usable by name, as @Idempotent(store = \"beanName\"))");
    }
    b.defaultStore(defaultStore);
    named.forEach(b::store);
    keyResolvers.orderedStream().forEach(b::keyResolver);
    List<IdempotencyListener> all = new ArrayList<>(listeners.orderedStream().toList());
    MeterRegistry registry = meterRegistry.getIfUnique();
    if (registry != null
        && all.stream().noneMatch(l -> l instanceof MicrometerIdempotencyListener)) {
      all.add(MicrometerIdempotencyListener.of(registry));
    }
    b.listener(Listeners.of(all));
    ResultCodec userCodec = codec.getIfUnique();
    if (userCodec != null) {
      b.codec(userCodec);
    } else if (jacksonWanted(properties.settings()) && JACKSON_PRESENT) {
      ResultCodec onBootsMapper = BootObjectMapper.codec(beans);
      if (onBootsMapper != null) {
        b.codec(onBootsMapper);
      }
    }
    timeSource.ifUnique(b::timeSource);
    return b.build();
  }

  private static final boolean JACKSON_PRESENT =
      present("com.fasterxml.jackson.databind.ObjectMapper");

  private static boolean jacksonWanted(Map<String, String> settings) {
    String type = settings.getOrDefault("idempotent.codec.type", settings.get("idempotent.codec"));
    return "jackson".equals(type);
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, IdempotencyAutoConfiguration.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Loaded only when Jackson 2 is present: the application's ObjectMapper bean, if it has one. */
  private static final class BootObjectMapper {
    static ResultCodec codec(ListableBeanFactory beans) {
      com.fasterxml.jackson.databind.ObjectMapper mapper =
          beans.getBeanProvider(com.fasterxml.jackson.databind.ObjectMapper.class).getIfUnique();
      return mapper == null
          ? null
          : dev.idempotent.internal.codec.JacksonCodecFactory.create(mapper);
    }
  }

  /**
   * The installed instance ({@link Idempotency#global()}), for the programmatic API. Its stores are
   * created and checked here unless {@code idempotent.fail-fast=false}: start-up fails with the
   * reason.
   */
  @Bean
  public Idempotency idempotency(IdempotencyConfig config, IdempotencyProperties properties) {
    Idempotency installed = Idempotency.install(config);
    if (properties.isFailFast()) {
      try {
        installed.verify();
      } catch (RuntimeException e) {
        Idempotency.shutdown();
        throw e;
      }
    }
    return installed;
  }

  @Bean
  Installation idempotencyInstallation(Idempotency idempotency) {
    IdempotencyStore ours = built;
    return new Installation(ours == null ? List.of() : List.of(ours));
  }
}
