package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnDuplicate;
import dev.idempotent.OnInProgress;
import dev.idempotent.http.IdempotencyRule;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The starter's jar carries the configuration metadata an IDE completes {@code idempotent.*} from:
 * every property with a description, enumerated ones with their enum type, defaults where the
 * library has one, and the web rule's settings with their values.
 */
class ConfigurationMetadataTest {
  private static final Map<String, JsonNode> PROPERTIES = new LinkedHashMap<>();
  private static final Map<String, JsonNode> HINTS = new LinkedHashMap<>();

  @BeforeAll
  static void readTheStartersMetadata() throws IOException {
    List<URL> all =
        Collections.list(
            ConfigurationMetadataTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"));
    for (URL url : all) {
      try (InputStream in = url.openStream()) {
        JsonNode root = new ObjectMapper().readTree(in);
        if (root.path("groups").findValuesAsText("name").contains("idempotent")) {
          root.get("properties").forEach(p -> PROPERTIES.put(p.get("name").asText(), p));
          root.path("hints").forEach(h -> HINTS.put(h.get("name").asText(), h));
        }
      }
    }
    assertThat(PROPERTIES).as("the starter's metadata among %s", all).isNotEmpty();
  }

  @Test
  void everyPropertyIsDescribed() {
    assertThat(PROPERTIES).hasSizeGreaterThan(40);
    PROPERTIES.forEach(
        (name, p) -> assertThat(p.path("description").asText()).as(name).isNotBlank());
  }

  @Test
  void theEnumeratedPropertiesHaveTheirEnumTypes() {
    // open-ended: any store module's provider name (memory, redisson, jdbc, ...)
    assertThat(type("idempotent.store")).isEqualTo("java.lang.String");
    assertThat(type("idempotent.on-store-failure")).isEqualTo("dev.idempotent.StoreFailurePolicy");
    assertThat(type("idempotent.codec.type"))
        .isEqualTo("dev.idempotent.IdempotencyConfig$CodecType");
  }

  @Test
  void theDefaultsAreThereForTheIde() {
    assertThat(defaultValue("idempotent.ttl")).isEqualTo("24h");
    assertThat(defaultValue("idempotent.lease")).isEqualTo("30s");
    assertThat(defaultValue("idempotent.on-store-failure")).isEqualTo("fail-closed");
    assertThat(defaultValue("idempotent.codec.type")).isEqualTo("java");
    assertThat(defaultValue("idempotent.fail-fast")).isEqualTo("true");
    assertThat(defaultValue("idempotent.problem-details.enabled")).isEqualTo("true");
    assertThat(defaultValue("management.health.idempotency.enabled")).isEqualTo("true");
  }

  @Test
  void theWebRuleSettingsAreTypedWithTheirEnums() {
    assertThat(PROPERTIES)
        .containsKeys(
            "idempotent.web.paths",
            "idempotent.web.rules",
            "idempotent.web.order",
            "idempotent.web.key",
            "idempotent.web.anonymous",
            "idempotent.web.on-in-progress",
            "idempotent.web.on-duplicate",
            "idempotent.web.on-ambiguous-failure");
    // an IDE offers an enum-typed property's constants, spelled as the settings spell them
    assertThat(type("idempotent.web.key")).isEqualTo(IdempotencyRule.Key.class.getName());
    assertThat(type("idempotent.web.anonymous"))
        .isEqualTo(IdempotencyRule.Anonymous.class.getName());
    assertThat(type("idempotent.web.on-in-progress")).isEqualTo(OnInProgress.class.getName());
    assertThat(type("idempotent.web.on-duplicate")).isEqualTo(OnDuplicate.class.getName());
    assertThat(type("idempotent.web.on-ambiguous-failure"))
        .isEqualTo(OnAmbiguousFailure.class.getName());
    assertThat(type("idempotent.web.rules"))
        .isEqualTo("java.util.Map<java.lang.String,dev.idempotent.spring.WebRuleProperties>");
    assertThat(HINTS).as("no hand-written hints for typed properties").isEmpty();
  }

  private static String type(String name) {
    assertThat(PROPERTIES).containsKey(name);
    return PROPERTIES.get(name).path("type").asText();
  }

  private static String defaultValue(String name) {
    assertThat(PROPERTIES).containsKey(name);
    return PROPERTIES.get(name).path("defaultValue").asText();
  }
}
