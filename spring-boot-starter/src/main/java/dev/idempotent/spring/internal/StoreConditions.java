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
 * library reads them: Spring's environment first, then {@code idempotent.properties}.
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
  abstract static class Chosen extends SpringBootCondition {
    private final String store;

    Chosen(String store) {
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

  /** {@code idempotent.store} is unset or {@code memory}. */
  public static final class MemoryChosen extends Chosen {
    public MemoryChosen() {
      super("memory");
    }
  }

  /** {@code idempotent.store} is unset or {@code redisson}. */
  public static final class RedissonChosen extends Chosen {
    public RedissonChosen() {
      super("redisson");
    }
  }

  /** {@code idempotent.store} is unset or {@code jdbc}. */
  public static final class JdbcChosen extends Chosen {
    public JdbcChosen() {
      super("jdbc");
    }
  }

  /** Matches when one of {@code names} is set, or with {@code set == false} when none is. */
  abstract static class AnySet extends SpringBootCondition {
    private final boolean set;
    private final String[] names;

    AnySet(boolean set, String... names) {
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

  /** {@code idempotent.redisson.address} or {@code idempotent.redisson.config} is set. */
  public static final class OwnRedisConnection extends AnySet {
    public OwnRedisConnection() {
      super(true, "idempotent.redisson.address", "idempotent.redisson.config");
    }
  }

  /** Neither {@code idempotent.redisson.address} nor {@code idempotent.redisson.config} is set. */
  public static final class NoOwnRedisConnection extends AnySet {
    public NoOwnRedisConnection() {
      super(false, "idempotent.redisson.address", "idempotent.redisson.config");
    }
  }

  /** {@code idempotent.jdbc.url} is set. */
  public static final class OwnDatabase extends AnySet {
    public OwnDatabase() {
      super(true, "idempotent.jdbc.url");
    }
  }

  /** {@code idempotent.jdbc.url} is unset. */
  public static final class NoOwnDatabase extends AnySet {
    public NoOwnDatabase() {
      super(false, "idempotent.jdbc.url");
    }
  }
}
