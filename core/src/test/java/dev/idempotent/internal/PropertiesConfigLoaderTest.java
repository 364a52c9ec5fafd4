package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Core alone has no store module: these are the errors a user sees before adding one or when a
 * setting is wrong.
 */
class PropertiesConfigLoaderTest {
  private static final ClassLoader CL = PropertiesConfigLoaderTest.class.getClassLoader();

  @Test
  void noStoreModuleOnTheClasspathNamesTheModulesToAdd() {
    assertThatThrownBy(() -> PropertiesConfigLoader.load(Map.of(), CL))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent-store-memory")
        .hasMessageContaining("Idempotency.install");
  }

  @Test
  void anUnknownStoreNameSaysWhichModuleIsMissing() {
    assertThatThrownBy(
            () -> PropertiesConfigLoader.load(Map.of("idempotent.store", "redisson"), CL))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.store=redisson")
        .hasMessageContaining("idempotent-store-redisson");
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> PropertiesConfigLoader.load(Map.of("idempotent.ttl", "forever"), CL))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.ttl")
        .hasMessageContaining("forever");
    assertThatThrownBy(() -> PropertiesConfigLoader.load(Map.of("idempotent.codec", "xml"), CL))
        .hasMessageContaining("idempotent.codec=xml")
        .hasMessageContaining("jackson");
    assertThatThrownBy(
            () -> PropertiesConfigLoader.load(Map.of("idempotent.on-store-failure", "maybe"), CL))
        .hasMessageContaining("fail-closed")
        .hasMessageContaining("fail-open");
  }

  @Test
  void theCodecIsAlsoNamedByCodecTypeWhichBindsBesideCodecAllow() {
    // codec.type wins over the older idempotent.codec, which cannot bind in Spring Boot beside
    // codec.allow
    PropertiesConfigLoader.builder(
        Map.of("idempotent.codec.type", "java", "idempotent.codec", "xml"));
    assertThatThrownBy(() -> PropertiesConfigLoader.builder(Map.of("idempotent.codec.type", "xml")))
        .hasMessageContaining("idempotent.codec.type=xml");
  }

  @Test
  void theNearCacheIsOffUnlessAMaximumSizeIsSet() {
    assertThat(
            PropertiesConfigLoader.builder(Map.of())
                .defaultStore(new dev.idempotent.TestStore())
                .build()
                .nearCacheMaximumSize())
        .isZero();
    IdempotencyConfig off =
        PropertiesConfigLoader.builder(Map.of("idempotent.near-cache.maximum-size", "0"))
            .defaultStore(new dev.idempotent.TestStore())
            .build();
    assertThat(off.nearCacheMaximumSize()).isZero();
    assertThat(off.defaultStore()).isNotInstanceOf(NearCacheStore.class);

    IdempotencyConfig on =
        PropertiesConfigLoader.builder(
                Map.of(
                    "idempotent.near-cache.maximum-size",
                    " 5000 ",
                    "idempotent.near-cache.expire-after",
                    "2m"))
            .defaultStore(new dev.idempotent.TestStore())
            .build();
    assertThat(on.nearCacheMaximumSize()).isEqualTo(5000);
    assertThat(on.nearCacheExpireAfter()).isEqualTo(Duration.ofMinutes(2));
    assertThat(on.defaultStore())
        .isInstanceOfSatisfying(
            NearCacheStore.class,
            c -> {
              assertThat(c.maximumSize()).isEqualTo(5000);
              assertThat(c.maxAge()).isEqualTo(Duration.ofMinutes(2));
            });
  }

  @Test
  void aBadNearCacheSettingIsAConfigurationError() {
    for (String bad : new String[] {"-1", "lots", "1.5", "99999999999"}) {
      assertThatThrownBy(
              () ->
                  PropertiesConfigLoader.builder(Map.of("idempotent.near-cache.maximum-size", bad)))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("idempotent.near-cache.maximum-size=" + bad)
          .hasMessageContaining("from 0 to")
          .hasMessageContaining("(default 0)");
    }
    assertThatThrownBy(
            () ->
                PropertiesConfigLoader.builder(
                    Map.of("idempotent.near-cache.expire-after", "soon")))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.near-cache.expire-after")
        .hasMessageContaining("soon");
  }

  @Test
  void systemPropertiesOverrideTheFile() {
    System.setProperty("idempotent.lease", "45s");
    try {
      assertThat(PropertiesConfigLoader.settings()).containsEntry("idempotent.lease", "45s");
    } finally {
      System.clearProperty("idempotent.lease");
    }
  }
}
