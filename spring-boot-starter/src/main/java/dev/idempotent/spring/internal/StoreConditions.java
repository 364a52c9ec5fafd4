package dev.idempotent.spring.internal;

import dev.idempotent.internal.PropertiesConfigLoader;
import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The conditions of the store auto-configurations on the {@code idempotent.*} settings, read as the
 * library reads them: Spring's environment first, then {@code idempotent.properties}. A store's
 * auto-configuration subclasses them with its own name and settings.
 */
public final class StoreConditions {
  private StoreConditions() {}

  /** The setting {@code name}, or {@code null} when it is unset or blank. */
  static String setting(Environment environment, String name) {
    String v = environment.getProperty(name);
    if (v == null || v.isBlank()) {
      v = PropertiesConfigLoader.settings().get(name);
    }
    return v == null || v.isBlank() ? null : v.strip();
  }

  /** Matches when {@code idempotent.store} is unset or names {@code store}, in any spelling. */
  public abstract static class Chosen extends SpringBootCondition {
    private final String store;

    protected Chosen(String store) {
      this.store = store;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String v = setting(context.getEnvironment(), "idempotent.store");
      if (v == null) {
        return ConditionOutcome.match("idempotent.store is unset");
      }
      String normalized = v.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
      return normalized.equals(store)
          ? ConditionOutcome.match("idempotent.store=" + v)
          : ConditionOutcome.noMatch("idempotent.store=" + v + " chooses another store");
    }
  }

  /** Matches when one of {@code names} is set, or with {@code set == false} when none is. */
  public abstract static class AnySet extends SpringBootCondition {
    private final boolean set;
    private final String[] names;

    protected AnySet(boolean set, String... names) {
      this.set = set;
      this.names = names;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      for (String name : names) {
        if (setting(context.getEnvironment(), name) != null) {
          return new ConditionOutcome(set, name + " is set");
        }
      }
      return new ConditionOutcome(!set, String.join(" and ", names) + " unset");
    }
  }
}
