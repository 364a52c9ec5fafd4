package dev.idempotent.spring.internal;

import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spi.StoreSettings;
import dev.idempotent.spring.IdempotencyStoreProperties;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Bound properties handed to the library as the typed values of the settings they stand for (a
 * {@link StoreSettings} whose values are given typed): nothing is written out as text and read
 * again. The property of setting {@code idempotent.near-cache.maximum-size} on the properties bound
 * at {@code idempotent} is {@code nearCache.maximumSize}.
 */
public final class TypedSettings {
  private TypedSettings() {}

  /**
   * The values of {@code settings} in {@code properties} (bound at {@code prefix}), by setting
   * name; an unset (null) or empty value is left out.
   *
   * @throws IllegalStateException when {@code properties} has no property for one of the settings
   */
  public static Map<String, Object> of(
      Object properties, String prefix, List<Setting<?>> settings) {
    BeanWrapper bean = new BeanWrapperImpl(properties);
    Map<String, Object> values = new LinkedHashMap<>();
    for (Setting<?> s : settings) {
      String path = propertyPath(s, prefix);
      if (!bean.isReadableProperty(path)) {
        throw new IllegalStateException(
            properties.getClass().getName()
                + " has no property "
                + path
                + " for the setting "
                + s.name()
                + ": add it (same type "
                + s.type().getSimpleName()
                + ", same description)");
      }
      Object v = bean.getPropertyValue(path);
      if (v != null && !(v instanceof Collection<?> c && c.isEmpty())) {
        values.put(s.name(), v);
      }
    }
    return values;
  }

  /** The bean property path of {@code setting} on properties bound at {@code prefix}. */
  public static String propertyPath(Setting<?> setting, String prefix) {
    if (!setting.name().startsWith(prefix + ".")) {
      throw new IllegalArgumentException(setting.name() + " is not under " + prefix);
    }
    List<String> parts = new ArrayList<>();
    for (String segment : setting.name().substring(prefix.length() + 1).split("\\.")) {
      StringBuilder camel = new StringBuilder();
      for (String word : segment.split("-")) {
        camel.append(
            camel.length() == 0
                ? word
                : word.substring(0, 1).toUpperCase(Locale.ROOT) + word.substring(1));
      }
      parts.add(camel.toString());
    }
    return String.join(".", parts);
  }

  /** The settings of the store {@code properties} stand for, typed. */
  public static StoreSettings ofStore(IdempotencyStoreProperties properties) {
    String name = properties.storeName();
    IdempotencyStoreProvider provider =
        PropertiesConfigLoader.provider(name, TypedSettings.class.getClassLoader())
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no IdempotencyStoreProvider named " + name + " on the classpath"));
    return typed(of(properties, "idempotent." + name, provider.settings()));
  }

  /**
   * The settings of every store provider on the classpath: from its typed properties when its
   * auto-configuration bound them, else bound from {@code environment} by the definitions alone (a
   * store module without an auto-configuration of its own).
   */
  public static Map<String, Object> ofAllStores(
      Collection<? extends IdempotencyStoreProperties> bound, Environment environment) {
    Map<String, Object> values = new LinkedHashMap<>();
    Map<String, IdempotencyStoreProperties> byName = new LinkedHashMap<>();
    bound.forEach(p -> byName.put(p.storeName(), p));
    Binder binder = Binder.get(environment);
    for (IdempotencyStoreProvider provider :
        ServiceLoader.load(IdempotencyStoreProvider.class, TypedSettings.class.getClassLoader())) {
      IdempotencyStoreProperties properties = byName.get(provider.name());
      if (properties != null) {
        values.putAll(of(properties, "idempotent." + provider.name(), provider.settings()));
      } else {
        for (Setting<?> s : provider.settings()) {
          Bindable<?> target =
              List.class.equals(s.type()) ? Bindable.listOf(String.class) : Bindable.of(s.type());
          binder.bind(s.name(), target).ifBound(v -> values.put(s.name(), v));
        }
      }
    }
    return values;
  }

  /** Settings holding only {@code values}, typed. */
  public static StoreSettings typed(Map<String, Object> values) {
    return StoreSettings.of(Map.of()).withTyped(values);
  }
}
