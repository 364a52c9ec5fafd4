package dev.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.StoreFailurePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingTest {
  private static final Setting<Duration> TIMEOUT =
      Setting.duration("idempotent.test.timeout", Duration.ofSeconds(3), "A timeout.")
          .requiring(d -> d.compareTo(Duration.ofHours(1)) <= 0, "is longer than 1h");
  private static final Setting<Integer> SIZE =
      Setting.integer("idempotent.test.size", 10, 1, 1000, "A size.");
  private static final Setting<StoreFailurePolicy> POLICY =
      Setting.choice(
          "idempotent.test.policy",
          StoreFailurePolicy.class,
          StoreFailurePolicy.FAIL_CLOSED,
          "A policy.");
  private static final Setting<String> PASSWORD =
      Setting.text("idempotent.test.password", null, "A password.").secret();

  @Test
  void aWrittenValueIsParsedAndChecked() {
    assertThat(TIMEOUT.parse(" 500ms ")).isEqualTo(Duration.ofMillis(500));
    assertThat(SIZE.parse("1_000")).isEqualTo(1000);
    assertThat(POLICY.parse("FAIL_OPEN")).isEqualTo(StoreFailurePolicy.FAIL_OPEN);
    assertThat(POLICY.parse("fail-open")).isEqualTo(StoreFailurePolicy.FAIL_OPEN);
    assertThat(Setting.list("idempotent.test.list", "A list.").parse("a, b,,c"))
        .containsExactly("a", "b", "c");
  }

  @Test
  void aBadWrittenValueNamesTheSettingTheValueAndWhatToWrite() {
    assertThatThrownBy(() -> TIMEOUT.parse("0s"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessage(
            "idempotent.test.timeout=0s is not positive: write a positive duration such as 500ms,"
                + " 30s, 10m, 24h or 7d (default 3s)");
    assertThatThrownBy(() -> TIMEOUT.parse("2h"))
        .hasMessageStartingWith("idempotent.test.timeout=2h is longer than 1h: write");
    assertThatThrownBy(() -> TIMEOUT.parse("soon"))
        .hasMessageStartingWith("idempotent.test.timeout=soon is not a positive duration");
    assertThatThrownBy(() -> SIZE.parse("0"))
        .hasMessage(
            "idempotent.test.size=0 is out of range: write a whole number from 1 to 1000 (default"
                + " 10)");
    assertThatThrownBy(() -> POLICY.parse("sometimes"))
        .hasMessage(
            "idempotent.test.policy=sometimes is not one of fail-closed, fail-open (default"
                + " fail-closed)");
  }

  @Test
  void aTypedValueIsCheckedAsAWrittenOneIs() {
    assertThat(TIMEOUT.check(Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(() -> TIMEOUT.check(Duration.ofHours(2)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageStartingWith("idempotent.test.timeout=2h is longer than 1h");
    assertThatThrownBy(() -> SIZE.check("ten"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.test.size is given as a java.lang.String");
  }

  @Test
  void aSecretNeverAppearsInAMessage() {
    Setting<String> checked = PASSWORD.requiring(p -> p.length() >= 8, "is too short");
    assertThatThrownBy(() -> checked.parse("hunter2"))
        .hasMessage("idempotent.test.password=*** is too short")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void storeSettingsTakeTypedValuesOverWrittenOnesAndDefaultsLast() {
    StoreSettings written = StoreSettings.of(Map.of("idempotent.test.size", "20"));
    assertThat(written.value(SIZE)).isEqualTo(20);
    assertThat(written.value(TIMEOUT)).isEqualTo(Duration.ofSeconds(3));
    assertThat(written.isSet(TIMEOUT)).isFalse();
    StoreSettings typed = written.withTyped(Map.of("idempotent.test.size", 30));
    assertThat(typed.value(SIZE)).isEqualTo(30);
    assertThat(typed.isSet(SIZE)).isTrue();
    assertThatThrownBy(() -> written.withTyped(Map.of("idempotent.test.size", 0)).value(SIZE))
        .hasMessageStartingWith("idempotent.test.size=0 is out of range");
  }

  @Test
  void aDefinitionIsCheckedWhenItIsMade() {
    assertThatThrownBy(() -> Setting.integer("idempotent.test.n", 0, 1, 5, "N."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the default 0 is out of range");
    assertThatThrownBy(() -> Setting.text("ttl", null, "No prefix."))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(
            List.of(
                Setting.spelling(Duration.ofHours(24)), Setting.spelling(Duration.ofMillis(1500))))
        .containsExactly("24h", "1500ms");
  }
}
