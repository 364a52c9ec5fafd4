package dev.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Durations in settings, read by the SPI itself. */
class StoreSettingsDurationTest {
  @Test
  void readsShortFormsAndIso() {
    assertThat(StoreSettings.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(StoreSettings.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(StoreSettings.parseDuration("10m")).isEqualTo(Duration.ofMinutes(10));
    assertThat(StoreSettings.parseDuration("24h")).isEqualTo(Duration.ofHours(24));
    assertThat(StoreSettings.parseDuration(" 7d ")).isEqualTo(Duration.ofDays(7));
    assertThat(StoreSettings.parseDuration("PT10M")).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void rejectsWhatItCannotReadNamingTheValueAndTheForms() {
    assertThatThrownBy(() -> StoreSettings.parseDuration("3x"))
        .hasMessageContaining("'3x'")
        .hasMessageContaining("30s");
    assertThatThrownBy(() -> StoreSettings.parseDuration("")).hasMessageContaining("empty");
    assertThatThrownBy(() -> StoreSettings.parseDuration("0s")).hasMessageContaining("positive");
    assertThatThrownBy(() -> StoreSettings.parseDuration("-PT1S")).hasMessageContaining("positive");
  }

  @Test
  void aDurationSettingIsReadTheSameWayAndNamesTheSettingWhenBad() {
    StoreSettings settings =
        StoreSettings.of(Map.of("idempotent.ttl", "10m", "idempotent.lease", "3x"));
    assertThat(settings.duration("idempotent.ttl")).contains(Duration.ofMinutes(10));
    assertThatThrownBy(() -> settings.duration("idempotent.lease"))
        .hasMessageStartingWith("setting idempotent.lease: ")
        .hasMessageContaining("'3x'");
  }

  @Test
  void theSpiDependsOnNothingInternal() throws Exception {
    // StoreSettings used to call dev.idempotent.internal.Durations: a store author's SPI must stand
    // on its own.
    java.nio.file.Path spi =
        Path.of(StoreSettings.class.getResource("StoreSettings.class").toURI()).getParent();
    try (Stream<Path> classes = Files.list(spi)) {
      var referencing =
          classes
              .filter(c -> c.toString().endsWith(".class"))
              .filter(
                  c -> {
                    try {
                      return new String(Files.readAllBytes(c), StandardCharsets.ISO_8859_1)
                          .contains("dev/idempotent/internal");
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  })
              .map(c -> c.getFileName().toString())
              .toList();
      assertThat(referencing).isEmpty();
    }
  }
}
