package dev.idempotent.spring;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.http.HttpIdempotency;
import dev.idempotent.http.IdempotencyRule;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * What the library set up, said once when the application has started: one INFO line (logger {@code
 * dev.idempotent}) with the default store and its address (never credentials), the named stores,
 * the codec, the web rules in order and the adapters registered; a WARN for each web rule that lets
 * a request without a key through unprotected. The same facts are in the actuator endpoint ({@link
 * IdempotencyEndpoint}, {@code GET} with no parameter).
 */
public final class IdempotencyStartupReport implements SmartInitializingSingleton {
  private static final Logger LOG = LoggerFactory.getLogger("dev.idempotent");

  private final ApplicationContext context;

  IdempotencyStartupReport(ApplicationContext context) {
    this.context = context;
  }

  @Override
  public void afterSingletonsInstantiated() {
    Map<String, Object> facts = facts();
    LOG.info(
        "idempotency: store {}, named stores {}, codec {}, web rules {}, adapters {}",
        facts.get("store"),
        facts.get("namedStores"),
        facts.get("codec"),
        facts.get("webRules"),
        facts.get("adapters"));
    HttpIdempotency web = context.getBeanProvider(HttpIdempotency.class).getIfUnique();
    if (web != null) {
      for (IdempotencyRule rule : web.rules()) {
        if (rule.key() == IdempotencyRule.Key.OPTIONAL) {
          LOG.warn(
              "web rule '{}' lets requests without an Idempotency-Key through unprotected (key"
                  + " optional): require the key (key=required) if every request of {} must be"
                  + " protected",
              rule.scope(),
              rule.paths());
        }
      }
    }
  }

  /** The facts, as the log line and the endpoint give them. */
  public Map<String, Object> facts() {
    Map<String, Object> facts = new LinkedHashMap<>();
    IdempotencyConfig config = context.getBean(Idempotency.class).config();
    Environment env = context.getEnvironment();
    String address =
        firstNonNull(
            env.getProperty("idempotent.redisson.address"), env.getProperty("idempotent.jdbc.url"));
    String store = config.defaultStore().getClass().getSimpleName();
    facts.put("store", address == null ? store : store + " " + withoutCredentials(address));
    facts.put("namedStores", List.copyOf(config.stores().keySet()));
    facts.put("codec", config.codec().getClass().getSimpleName());
    List<String> rules = new ArrayList<>();
    HttpIdempotency web = context.getBeanProvider(HttpIdempotency.class).getIfUnique();
    if (web != null) {
      for (IdempotencyRule rule : web.rules()) {
        rules.add(
            rule.scope()
                + " "
                + rule.methods()
                + " "
                + rule.paths()
                + " key="
                + rule.key().name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    facts.put("webRules", rules);
    List<String> adapters = new ArrayList<>(List.of("method"));
    adapterIf(adapters, "http", "idempotencyFilter");
    adapterIf(adapters, "webflux", "idempotencyWebFilter");
    adapterIf(adapters, "kafka", "idempotentKafkaListenerInstaller");
    adapterIf(adapters, "rabbit", "idempotentRabbitListenerContainerFactories");
    adapterIf(adapters, "camel", "idempotentRepository");
    facts.put("adapters", adapters);
    return facts;
  }

  private void adapterIf(List<String> adapters, String adapter, String beanName) {
    if (context.containsBean(beanName)) {
      adapters.add(adapter);
    }
  }

  private static String firstNonNull(String a, String b) {
    return a != null ? a : b;
  }

  /**
   * {@code address} with no user, password or query (where JDBC URLs carry credentials): {@code
   * redis://:secret@host:6379} gives {@code redis://host:6379}, {@code
   * jdbc:postgresql://host/db?user=u&password=p} gives {@code jdbc:postgresql://host/db}. An
   * address that cannot be read is shown as its scheme only.
   */
  static String withoutCredentials(String address) {
    String prefix = "";
    String rest = address;
    if (rest.startsWith("jdbc:")) {
      int colon = rest.indexOf(':', 5);
      prefix = colon < 0 ? "jdbc:" : rest.substring(0, colon + 1);
      rest = colon < 0 ? rest.substring(5) : rest.substring(colon + 1);
    }
    int query = rest.indexOf('?');
    if (query >= 0) {
      rest = rest.substring(0, query);
    }
    int semicolon = rest.indexOf(';'); // SQL Server style properties
    if (semicolon >= 0) {
      rest = rest.substring(0, semicolon);
    }
    try {
      URI uri = URI.create(rest);
      if (uri.getHost() == null) {
        return prefix + (uri.getScheme() == null ? "" : uri.getScheme() + ":") + "…";
      }
      return prefix
          + new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null);
    } catch (Exception e) {
      int at = rest.lastIndexOf('@');
      return prefix + (at >= 0 ? rest.substring(at + 1) : "…");
    }
  }
}
