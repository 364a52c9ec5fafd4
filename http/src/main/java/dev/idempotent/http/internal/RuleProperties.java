package dev.idempotent.http.internal;

import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.StoreSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The web rules as settings by name give them: {@code idempotent.web.*} properties, a servlet
 * filter's init-parameters, Spring Boot's properties. One rule with its settings at the top, or
 * {@code rules=a,b} and each rule's settings under {@code rules.<name>.}.
 */
public final class RuleProperties {
  /** The settings of one rule, by name. */
  public static final List<String> RULE_SETTINGS =
      List.of(
          "scope",
          "key",
          "paths",
          "methods",
          "anonymous",
          "store",
          "ttl",
          "lease",
          "wait-timeout",
          "on-in-progress",
          "on-duplicate",
          "on-ambiguous-failure",
          "retry-after",
          "max-hold",
          "exclude-paths",
          "max-request-body",
          "max-response-body",
          "replayed-headers",
          "record-client-errors",
          "submit-token-field",
          "submit-token-header");

  /** The scope of the one rule whose settings are at the top, unless {@code scope} is given. */
  public static final String DEFAULT_SCOPE = "http";

  private RuleProperties() {}

  /** What the settings describe. */
  public record Parsed(String problemTypeBase, List<IdempotencyRule> rules) {}

  /** The entries of {@code idempotent.properties} and system properties under {@code prefix}. */
  public static Map<String, String> fromProperties(String prefix) {
    Map<String, String> values = new LinkedHashMap<>();
    PropertiesConfigLoader.settings()
        .forEach(
            (k, v) -> {
              if (k.startsWith(prefix)) {
                values.put(k.substring(prefix.length()), v);
              }
            });
    return values;
  }

  /**
   * @throws IllegalArgumentException naming an unknown setting or a bad value
   */
  public static Parsed parse(Map<String, String> values) {
    Map<String, String> top = new LinkedHashMap<>();
    Map<String, Map<String, String>> byRule = new LinkedHashMap<>();
    String base = null;
    List<String> names = null;
    for (Map.Entry<String, String> e : values.entrySet()) {
      String name = e.getKey().strip();
      String v = e.getValue() == null ? "" : e.getValue().strip();
      if (name.equals("problem-type-base")) {
        base = v.isEmpty() ? null : v;
      } else if (name.equals("rules")) {
        names = list(v);
      } else if (name.startsWith("rules.")) {
        String rest = name.substring("rules.".length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
          throw new IllegalArgumentException(
              "setting '" + name + "': write rules.<rule name>.<setting>, e.g. rules.orders.paths");
        }
        byRule
            .computeIfAbsent(rest.substring(0, dot), k -> new LinkedHashMap<>())
            .put(rest.substring(dot + 1), v);
      } else if (RULE_SETTINGS.contains(name)) {
        top.put(name, v);
      } else {
        throw new IllegalArgumentException(
            "unknown web setting '"
                + name
                + "'; known: problem-type-base, rules, rules.<name>.<setting>, and the rule"
                + " settings "
                + RULE_SETTINGS);
      }
    }
    List<IdempotencyRule> rules = new ArrayList<>();
    if (names == null) {
      if (!byRule.isEmpty()) {
        throw new IllegalArgumentException(
            "settings for the rules "
                + byRule.keySet()
                + " are given but 'rules' does not list them: set rules="
                + String.join(",", byRule.keySet())
                + " (in the order they are tried)");
      }
      if (!top.isEmpty()) {
        rules.add(rule(DEFAULT_SCOPE, top));
      }
    } else {
      if (!top.isEmpty()) {
        throw new IllegalArgumentException(
            "the settings "
                + top.keySet()
                + " are given at the top, beside 'rules': move them under rules.<name>.");
      }
      Set<String> unlisted = new LinkedHashSet<>(byRule.keySet());
      for (String n : names) {
        unlisted.remove(n);
        rules.add(rule(n, byRule.getOrDefault(n, Map.of())));
      }
      if (!unlisted.isEmpty()) {
        throw new IllegalArgumentException(
            "settings for the rules " + unlisted + " are given but 'rules' does not list them");
      }
    }
    return new Parsed(base, rules);
  }

  private static IdempotencyRule rule(String name, Map<String, String> settings) {
    try {
      for (String s : settings.keySet()) {
        if (!RULE_SETTINGS.contains(s)) {
          throw new IllegalArgumentException(
              "unknown rule setting '" + s + "'; known: " + RULE_SETTINGS);
        }
      }
      String scope = value(settings, "scope");
      scope = scope == null ? name : scope;
      String key = value(settings, "key");
      IdempotencyRule.Key mode =
          key == null
              ? IdempotencyRule.Key.OPTIONAL
              : choice(IdempotencyRule.Key.class, "key", key);
      IdempotencyRule.Builder b =
          mode == IdempotencyRule.Key.SUBMIT_TOKEN
              ? IdempotencyRule.submitTokens(scope)
              : IdempotencyRule.builder(scope).key(mode);
      for (Map.Entry<String, String> e : settings.entrySet()) {
        String v = e.getValue();
        if (v.isEmpty() || e.getKey().equals("scope") || e.getKey().equals("key")) {
          continue;
        }
        try {
          apply(b, e.getKey(), v);
        } catch (IllegalArgumentException ex) {
          throw new IllegalArgumentException(
              "setting " + e.getKey() + "=" + v + ": " + ex.getMessage(), ex);
        }
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("web rule '" + name + "': " + e.getMessage(), e);
    }
  }

  private static void apply(IdempotencyRule.Builder b, String name, String v) {
    String[] list = list(v).toArray(String[]::new);
    switch (name) {
      case "paths" -> b.paths(list);
      case "methods" -> b.methods(list);
      case "anonymous" -> b.anonymous(choice(IdempotencyRule.Anonymous.class, name, v));
      case "store" -> b.store(v);
      case "ttl" -> b.ttl(StoreSettings.parseDuration(v));
      case "lease" -> b.lease(StoreSettings.parseDuration(v));
      case "wait-timeout" -> b.waitTimeout(StoreSettings.parseDuration(v));
      case "on-in-progress" -> b.onInProgress(choice(OnInProgress.class, name, v));
      case "on-duplicate" -> b.onDuplicate(choice(OnDuplicate.class, name, v));
      case "on-ambiguous-failure" ->
          b.onAmbiguousFailure(choice(OnAmbiguousFailure.class, name, v));
      case "retry-after" -> b.retryAfter(StoreSettings.parseDuration(v));
      case "max-hold" -> b.maxHold(StoreSettings.parseDuration(v));
      case "exclude-paths" -> b.excludePaths(list);
      case "max-request-body" -> b.maxRequestBodyBytes(size(v));
      case "max-response-body" -> b.maxResponseBodyBytes(size(v));
      case "replayed-headers" -> b.replayedHeaders(list);
      case "record-client-errors" -> b.recordClientErrors(bool(v));
      case "submit-token-field" -> b.submitTokenField(v);
      case "submit-token-header" -> b.submitTokenHeader(v);
      default -> throw new IllegalStateException(name);
    }
  }

  private static String value(Map<String, String> settings, String name) {
    String v = settings.get(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  private static List<String> list(String v) {
    return Arrays.stream(v.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
  }

  /** An enum constant by its name in any case, with {@code -} for {@code _}. */
  public static <E extends Enum<E>> E choice(Class<E> type, String setting, String value) {
    String wanted = value.strip().replace('-', '_').toUpperCase(Locale.ROOT);
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(wanted)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        setting
            + " is '"
            + value
            + "'; allowed: "
            + Arrays.stream(type.getEnumConstants())
                .map(e -> e.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .collect(Collectors.joining(", ")));
  }

  /** Bytes, or with {@code KiB}/{@code MiB} ({@code k}/{@code m}). */
  public static int size(String v) {
    String s = v.strip();
    long factor = 1;
    String lower = s.toLowerCase(Locale.ROOT);
    for (String[] unit :
        new String[][] {{"kib", "1024"}, {"mib", "1048576"}, {"k", "1024"}, {"m", "1048576"}}) {
      if (lower.endsWith(unit[0])) {
        factor = Long.parseLong(unit[1]);
        s = s.substring(0, s.length() - unit[0].length()).strip();
        break;
      }
    }
    long n;
    try {
      n = Long.parseLong(s) * factor;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a size: give bytes, e.g. 1048576 or 1MiB");
    }
    if (n <= 0 || n > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("size out of range");
    }
    return (int) n;
  }

  private static boolean bool(String v) {
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException("expected true or false");
  }
}
