package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.KeyResolver;
import dev.idempotent.ResultCodec;
import dev.idempotent.TimeSource;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.StoreSettings;
import dev.idempotent.spring.internal.ApplicationJsonMapperCodec;
import dev.idempotent.spring.internal.ApplicationMapperCodecs;
import dev.idempotent.spring.internal.ApplicationObjectMapperCodec;
import dev.idempotent.spring.internal.IdempotencyRuntimeHints;
import dev.idempotent.spring.internal.Installation;
import dev.idempotent.spring.internal.Listeners;
import dev.idempotent.spring.internal.PropertiesFileSource;
import dev.idempotent.spring.internal.TypedSettings;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

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
 *       a copy of the application's Jackson 3 {@code JsonMapper} bean, else of its Jackson 2 {@code
 *       ObjectMapper} bean, if it has one: {@link ApplicationMapperCodecs}) and a {@link
 *       TimeSource} bean the clock.
 *   <li>An {@link IdempotencyConfig} bean of the application's replaces all of this: it is
 *       installed as it is.
 * </ul>
 */
@AutoConfiguration
@EnableConfigurationProperties(IdempotencyProperties.class)
@ImportRuntimeHints(IdempotencyRuntimeHints.class)
public class IdempotencyAutoConfiguration {

  /** {@code idempotent.properties} as Boot's property source of lowest precedence. */
  @Bean
  static PropertiesFileSource idempotencyPropertiesFileSource() {
    return new PropertiesFileSource();
  }

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
      ObjectProvider<IdempotencyStoreProperties> storeProperties,
      Environment environment,
      ObjectProvider<KeyResolver> keyResolvers,
      ObjectProvider<IdempotencyListener> listeners,
      ObjectProvider<ResultCodec> codec,
      ObjectProvider<ApplicationObjectMapperCodec> applicationObjectMapper,
      ObjectProvider<ApplicationJsonMapperCodec> applicationJsonMapper,
      ObjectProvider<TimeSource> timeSource) {
    StoreSettings settings =
        TypedSettings.typed(
            TypedSettings.of(properties, "idempotent", PropertiesConfigLoader.SETTINGS));
    IdempotencyConfig.Builder b = PropertiesConfigLoader.builder(settings);
    if (named.isEmpty()) {
      // no store bean: the store module that idempotent.store names, or the only one present
      b.defaultStore(
          PropertiesConfigLoader.createStore(
              settings.withTyped(
                  TypedSettings.ofAllStores(storeProperties.orderedStream().toList(), environment)),
              IdempotencyAutoConfiguration.class.getClassLoader()));
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
    ResultCodec userCodec = codec.getIfUnique();
    ResultCodec onApplicationsMapper =
        userCodec != null
            ? null
            : ApplicationMapperCodecs.codecOrNull(
                settings,
                applicationJsonMapper.getIfAvailable(),
                applicationObjectMapper.getIfAvailable());
    if (userCodec != null) {
      b.codec(userCodec);
    } else if (onApplicationsMapper != null) {
      b.codec(onApplicationsMapper);
    }
    timeSource.ifUnique(b::timeSource);
    return b.build();
  }

  /**
   * With Jackson 3 on the classpath: the application's JsonMapper for the jackson codec (preferred
   * over a Jackson 2 ObjectMapper when the application has both).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
  static class Jackson3Configuration {
    @Bean
    ApplicationJsonMapperCodec idempotencyApplicationJsonMapperCodec(
        ObjectProvider<tools.jackson.databind.json.JsonMapper> mappers) {
      return new ApplicationJsonMapperCodec(mappers);
    }
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
