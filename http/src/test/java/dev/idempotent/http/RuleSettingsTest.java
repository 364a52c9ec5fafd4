package dev.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.OnInProgress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rules built in code and from settings by name, and the mistakes each refuses. */
class RuleSettingsTest {
  @Test
  void oneRuleAtTheTopHasTheScopeHttp() {
    HttpIdempotency p =
        HttpIdempotency.builder()
            .settings(Map.of("paths", "/api/*", "key", "required", "ttl", "2h"))
            .build();
    IdempotencyRule rule = p.rules().get(0);
    assertThat(rule.scope()).isEqualTo("http");
    assertThat(rule.key()).isEqualTo(IdempotencyRule.Key.REQUIRED);
    assertThat(rule.paths()).containsExactly("/api/*");
    assertThat(rule.settings().ttl()).isEqualTo(Duration.ofHours(2));
  }

  @Test
  void namedRulesAreTriedInTheirListedOrder() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("rules", "checkout, api");
    settings.put("rules.api.paths", "/*");
    settings.put("rules.api.scope", "orders-api");
    settings.put("rules.checkout.key", "submit-token");
    settings.put("rules.checkout.paths", "/orders");
    settings.put("rules.checkout.anonymous", "refuse");
    settings.put("problem-type-base", "https://example.com/p/");
    HttpIdempotency p = HttpIdempotency.builder().settings(settings).build();

    assertThat(p.rules())
        .extracting(IdempotencyRule::scope)
        .containsExactly("checkout", "orders-api");
    assertThat(p.match("POST", "/orders"))
        .hasValueSatisfying(r -> assertThat(r.scope()).isEqualTo("checkout"));
    assertThat(p.match("post", "/other"))
        .hasValueSatisfying(r -> assertThat(r.scope()).isEqualTo("orders-api"));
    assertThat(p.match("GET", "/other")).isEmpty();
    IdempotencyRule checkout = p.rules().get(0);
    assertThat(checkout.settings().onInProgress()).isEqualTo(OnInProgress.WAIT);
    assertThat(checkout.settings().ttl()).isEqualTo(Duration.ofMinutes(15));
    assertThat(checkout.anonymous()).isEqualTo(IdempotencyRule.Anonymous.REFUSE);
    assertThat(p.problemTypeBase()).isEqualTo("https://example.com/p/");
  }

  /** Streaming paths are left out of a rule explicitly; a rule's max-hold bounds its work. */
  @Test
  void excludedPathsPassThroughAndMaxHoldIsARuleSetting() {
    HttpIdempotency p =
        HttpIdempotency.builder()
            .settings(
                Map.of(
                    "paths",
                    "/api/*",
                    "exclude-paths",
                    "/api/events/*, *.ndjson",
                    "max-hold",
                    "2m"))
            .build();
    IdempotencyRule rule = p.rules().get(0);
    assertThat(rule.excludedPaths()).containsExactly("/api/events/*", "*.ndjson");
    assertThat(rule.maxHold()).isEqualTo(Duration.ofMinutes(2));
    assertThat(p.match("POST", "/api/orders")).isPresent();
    assertThat(p.match("POST", "/api/events/live")).isEmpty();
    assertThat(p.match("POST", "/api/feed.ndjson")).isEmpty();
    assertThat(
            p.admit("POST", "/api/events/live", h -> java.util.List.of("k"), null).passesThrough())
        .isTrue();
    assertThat(IdempotencyRule.builder("x").build().maxHold()).isNull();
    assertThatThrownBy(() -> IdempotencyRule.builder("x").maxHold(Duration.ZERO))
        .hasMessageContaining("maxHold must be positive");
    assertThatThrownBy(() -> HttpIdempotency.builder().settings(Map.of("max-hold", "soon")).build())
        .hasMessageContaining("max-hold");
  }

  @Test
  void mistakesAreNamed() {
    assertThatThrownBy(() -> HttpIdempotency.builder().settings(Map.of("pathz", "/x")).build())
        .hasMessageContaining("unknown web setting 'pathz'");
    assertThatThrownBy(
            () ->
                HttpIdempotency.builder()
                    .settings(Map.of("rules", "a", "rules.a.on-in-progress", "later"))
                    .build())
        .hasMessageContaining("web rule 'a'")
        .hasMessageContaining("on-in-progress is 'later'; allowed: reject, wait");
    assertThatThrownBy(
            () -> HttpIdempotency.builder().settings(Map.of("rules", "a", "paths", "/x")).build())
        .hasMessageContaining("move them under rules.<name>.");
    assertThatThrownBy(() -> HttpIdempotency.builder().build()).hasMessageContaining("no rule");
    assertThatThrownBy(() -> IdempotencyRule.submitTokens("forms").build())
        .hasMessageContaining("has no paths");
    assertThatThrownBy(
            () ->
                IdempotencyRule.builder("api").recordFailures(IllegalStateException.class).build())
        .hasMessageContaining("recordFailures does not apply to web rules");
    assertThatThrownBy(() -> IdempotencyRule.builder("api").replayedHeaders("Set-Cookie"))
        .hasMessageContaining("Set-Cookie is never replayed");
    assertThatThrownBy(() -> IdempotencyRule.builder("api").paths("api/*"))
        .hasMessageContaining("'api/*'");
    assertThatThrownBy(() -> IdempotencyRule.builder(" "))
        .hasMessageContaining("scope must not be blank");
    assertThatThrownBy(
            () ->
                HttpIdempotency.builder()
                    .rule(IdempotencyRule.builder("a").paths("/a/*").build())
                    .rule(IdempotencyRule.builder("a").paths("/b/*").build())
                    .build())
        .hasMessageContaining("two rules have the scope 'a'");
  }

  @Test
  void problemTextsAreFixedAndNeverFormatted() {
    for (HttpProblem p : HttpProblem.values()) {
      assertThat(p.detail()).doesNotContain("%s").doesNotContain("{}").endsWith(".");
      assertThat(p.json("https://x/")).startsWith("{\"type\":\"https://x/" + p.slug() + "\"");
    }
  }
}
