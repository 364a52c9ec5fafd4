package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.KeyResolver;
import dev.idempotent.ResultCodec;
import dev.idempotent.TimeSource;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spring.internal.ApplicationObjectMapperCodec;
import dev.idempotent.spring.internal.Installation;
import dev.idempotent.spring.internal.Listeners;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Installs the {@link Idempotency} that every woven {@code @Idempotent} method uses (beans or not),
 * from the {@code idempotent.*} properties and the application's beans, checks its stores at
 * start-up and shuts it down with the context.
 *
 * <ul>
 *   <li>The default store: the {@link IdempotencyStore} bean (the {@code @Primary} one when there
 *       are several), which is the application's own or the one a store auto-configuration made
 *       ({@link IdempotencyRedissonStoreAutoConfiguration}, {@link
 *       IdempotencyJdbcStoreAutoConfiguration}, {@link IdempotencyMemoryStoreAutoConfiguration});
 *       with none, the store module that {@code idempotent.store} names or the only one on the
 *       classpath, made from its settings as without Spring. Every {@code IdempotencyStore} bean is
 *       also a named store for {@code @Idempotent(store = "beanName")}.
 *   <li>{@link KeyResolver} beans serve {@code @Idempotent(keyResolver = TheirClass.class)}; {@link
 *       IdempotencyListener} beans (among them the Micrometer one of {@link
 *       IdempotencyMicrometerAutoConfiguration}) receive the events; a {@link ResultCodec} bean
 *       replaces the codec (with {@code idempotent.codec.type=jackson}, the jackson codec works on
 *       a copy of the application's Jackson 2 {@code ObjectMapper} bean, if it has one) and a
 *       {@link TimeSource} bean the clock.
 *   <li>An {@link IdempotencyConfig} bean of the application's replaces all of this: it is
 *       installed as it is.
 * </ul>
 */
@AutoConfiguration
@EnableConfigurationProperties(IdempotencyProperties.class)
public class IdempotencyAutoConfiguration {

  /**
   * The configuration that is installed; an application bean of this type wins. The store beans are
   * injected (as a map) so that this bean, and so the installation, depends on each of them: the
   * context shuts the library down before it closes a store.
   */
  @Bean
  @ConditionalOnMissingBean(IdempotencyConfig.class)
  public IdempotencyConfig idempotencyConfig(
      IdempotencyProperties properties,
      Map<String, IdempotencyStore> named,
      ObjectProvider<IdempotencyStore> stores,
      ObjectProvider<KeyResolver> keyResolvers,
      ObjectProvider<IdempotencyListener> listeners,
      ObjectProvider<IdempotencyObserver> observer,
      ObjectProvider<ResultCodec> codec,
      ObjectProvider<ApplicationObjectMapperCodec> applicationObjectMapper,
      ObjectProvider<TimeSource> timeSource) {
    Map<String, String> settings = properties.settings();
    IdempotencyConfig.Builder b = PropertiesConfigLoader.builder(settings);
    if (named.isEmpty()) {
      // no store bean: the store module that idempotent.store names, or the only one present
      b.defaultStore(
          PropertiesConfigLoader.createStore(
              settings, IdempotencyAutoConfiguration.class.getClassLoader()));
    } else {
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
    }
    keyResolvers.orderedStream().forEach(b::keyResolver);
    b.listener(Listeners.of(listeners.orderedStream().toList()));
    observer.ifUnique(b::observer);
    ResultCodec userCodec = codec.getIfUnique();
    ApplicationObjectMapperCodec jackson = applicationObjectMapper.getIfAvailable();
    if (userCodec != null) {
      b.codec(userCodec);
    } else if (jackson != null && jacksonWanted(settings)) {
      ResultCodec onApplicationsMapper = jackson.codecOrNull();
      if (onApplicationsMapper != null) {
        b.codec(onApplicationsMapper);
      }
    }
    timeSource.ifUnique(b::timeSource);
    return b.build();
  }

  private static boolean jacksonWanted(Map<String, String> settings) {
    String type = settings.getOrDefault("idempotent.codec.type", settings.get("idempotent.codec"));
    return "jackson".equals(type);
  }

  /** With Jackson 2 on the classpath: the application's ObjectMapper for the jackson codec. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
  static class JacksonConfiguration {
    @Bean
    ApplicationObjectMapperCodec idempotencyApplicationObjectMapperCodec(
        ObjectProvider<com.fasterxml.jackson.databind.ObjectMapper> mappers) {
      return new ApplicationObjectMapperCodec(mappers);
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
    return new Installation();
  }
}
