package dev.idempotent.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The filter makes a scope's policy once and keeps a bounded number of them. */
class FilterPoliciesTest {
  @Test
  void aScopesPolicyIsMadeOnceWithTheFiltersSettings() {
    IdempotencyFilter.Builder settings =
        IdempotencyFilter.builder().ttl(Duration.ofMinutes(7)).lease(Duration.ofSeconds(9));

    IdempotencyPolicy first = settings.policy("http:POST /orders");

    assertThat(settings.policy("http:POST /orders")).isSameAs(first);
    assertThat(first.scope()).isEqualTo("http:POST /orders");
    assertThat(first.settings().ttl()).isEqualTo(Duration.ofMinutes(7));
    assertThat(first.settings().lease()).isEqualTo(Duration.ofSeconds(9));
    assertThat(settings.policy("http:POST /carts").scope()).isEqualTo("http:POST /carts");
  }

  @Test
  void pastTheBoundEveryScopeStillGetsItsOwnPolicy() {
    IdempotencyFilter.Builder settings = IdempotencyFilter.builder();
    int n = IdempotencyFilter.MAX_KEPT_POLICIES * 3 + 17;
    for (int i = 0; i < n; i++) {
      String scope = "http:POST /orders/" + i;
      assertThat(settings.policy(scope).scope()).isEqualTo(scope);
    }
    for (int i = 0; i < n; i += 97) {
      String scope = "http:POST /orders/" + i;
      assertThat(settings.policy(scope).scope()).isEqualTo(scope);
    }
  }

  @Test
  void aLongScopeGetsItsPolicyWithoutBeingKept() {
    IdempotencyFilter.Builder settings = IdempotencyFilter.builder();
    String scope = "http:POST /" + "x".repeat(IdempotencyFilter.MAX_KEPT_SCOPE_LENGTH);

    IdempotencyPolicy first = settings.policy(scope);

    assertThat(first.scope()).isEqualTo(scope);
    assertThat(settings.policy(scope)).isNotSameAs(first);
  }
}
