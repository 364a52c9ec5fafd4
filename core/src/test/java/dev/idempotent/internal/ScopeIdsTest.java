package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfigurationException;
import org.junit.jupiter.api.Test;

/**
 * Hardening: two scopes with one 64-bit id are refused when the second one's plan is first built,
 * naming both; the same scope registered again is fine.
 */
class ScopeIdsTest {
  @Test
  void aSecondScopeWithTheSameIdIsRefusedNamingBoth() {
    long id = 0x5eed_0000_0000_0001L;
    ScopeIds.register("test.scope-ids.first", id, null);
    assertThatCode(() -> ScopeIds.register("test.scope-ids.first", id, null))
        .doesNotThrowAnyException();

    assertThatThrownBy(
            () -> ScopeIds.register("test.scope-ids.second", id, "@Idempotent on A.b(C)"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("@Idempotent on A.b(C)")
        .hasMessageContaining("'test.scope-ids.second'")
        .hasMessageContaining("'test.scope-ids.first'")
        .hasMessageContaining("rename one of them");
  }

  @Test
  void theScopesInUseAreListedWithWhatFirstPlannedThem() {
    ScopeIds.register("test.scope-ids.listed", "@Idempotent on demo.Orders.submit(String)");
    ScopeIds.register("test.scope-ids.listed", "@Idempotent on demo.Orders.other(String)");
    ScopeIds.register("test.scope-ids.policy", null);

    assertThat(dev.idempotent.Idempotency.scopesInUse())
        .containsEntry("test.scope-ids.listed", "@Idempotent on demo.Orders.submit(String)")
        .containsEntry("test.scope-ids.policy", "a policy or rule built in code");
  }
}
