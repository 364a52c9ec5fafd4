package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {
  @Test
  void defaultsAreTheDocumentedOnes() {
    IdempotencyConfig c = IdempotencyConfig.builder().defaultStore(new TestStore()).build();
    assertThat(c.defaultTtl()).isEqualTo(Duration.ofHours(24));
    assertThat(c.defaultLease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.defaultWaitTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.storeFailurePolicy()).isEqualTo(StoreFailurePolicy.FAIL_CLOSED);
    assertThat(c.codec()).isNotNull();
  }

  @Test
  void badValuesFailAtBuildTimeNamingTheSetting() {
    assertThatThrownBy(() -> IdempotencyConfig.builder().defaultTtl(Duration.ZERO))
        .hasMessageContaining("defaultTtl")
        .hasMessageContaining("positive");
    assertThatThrownBy(() -> IdempotencyConfig.builder().store(" ", new TestStore()))
        .hasMessageContaining("store name");
    assertThatThrownBy(() -> IdempotencyConfig.builder().build())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("no default store");
    assertThatThrownBy(() -> IdempotencyPolicy.builder("")).hasMessageContaining("scope");
  }

  @Test
  void fromCopiesEverySetting() {
    TestStore a = new TestStore();
    IdempotencyConfig base =
        IdempotencyConfig.builder()
            .defaultStore(a)
            .store("x", a)
            .defaultLease(Duration.ofSeconds(5))
            .build();
    IdempotencyConfig copy = IdempotencyConfig.from(base).defaultTtl(Duration.ofMinutes(1)).build();
    assertThat(copy.defaultLease()).isEqualTo(Duration.ofSeconds(5));
    assertThat(copy.store("x")).isSameAs(a);
    assertThat(copy.defaultTtl()).isEqualTo(Duration.ofMinutes(1));
  }
}
