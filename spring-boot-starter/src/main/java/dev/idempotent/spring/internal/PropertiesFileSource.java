package dev.idempotent.spring.internal;

import dev.idempotent.internal.PropertiesConfigLoader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;

/**
 * Adds {@code idempotent.properties} (and the {@code idempotent.*} system properties) as the
 * environment's property source of lowest precedence before any properties are bound, so that the
 * typed properties take their values from it where Boot's own sources have none. Its short codec
 * key {@code idempotent.codec} is read as {@code idempotent.codec.type}.
 */
public final class PropertiesFileSource implements BeanFactoryPostProcessor, EnvironmentAware {
  /** The name of the property source. */
  public static final String NAME = "idempotent.properties";

  private ConfigurableEnvironment environment;

  @Override
  public void setEnvironment(Environment environment) {
    if (environment instanceof ConfigurableEnvironment configurable) {
      this.environment = configurable;
    }
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    if (environment == null || environment.getPropertySources().contains(NAME)) {
      return;
    }
    Map<String, Object> values = new LinkedHashMap<>(PropertiesConfigLoader.settings());
    Object codec = values.remove("idempotent.codec");
    if (codec != null) {
      values.putIfAbsent(PropertiesConfigLoader.CODEC.name(), codec);
    }
    if (!values.isEmpty()) {
      environment.getPropertySources().addLast(new MapPropertySource(NAME, values));
    }
  }
}
