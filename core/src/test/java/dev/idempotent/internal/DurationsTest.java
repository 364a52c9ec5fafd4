package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void readsShortFormsAndIso() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("10m")).isEqualTo(Duration.ofMinutes(10));
    assertThat(Durations.parse("24h")).isEqualTo(Duration.ofHours(24));
    assertThat(Durations.parse(" 7d ")).isEqualTo(Duration.ofDays(7));
    assertThat(Durations.parse("PT10M")).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void rejectsWhatItCannotReadNamingTheValueAndTheForms() {
    assertThatThrownBy(() -> Durations.parse("3x")).hasMessageContaining("'3x'").hasMessageContaining("30s");
    assertThatThrownBy(() -> Durations.parse("")).hasMessageContaining("empty");
    assertThatThrownBy(() -> Durations.parse("0s")).hasMessageContaining("positive");
    assertThatThrownBy(() -> Durations.parse("-PT1S")).hasMessageContaining("positive");
  }
}
