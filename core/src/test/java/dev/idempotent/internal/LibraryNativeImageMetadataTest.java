package dev.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The core's own native-image metadata names the resources and classes the core reads by name, by
 * the same names the code uses.
 */
class LibraryNativeImageMetadataTest {

  @Test
  void theCoresMetadataNamesWhatItReadsByName() throws IOException, ClassNotFoundException {
    JsonNode root;
    try (InputStream in =
        getClass()
            .getResourceAsStream(
                "/META-INF/native-image/dev.idempotent/idempotent-core/reachability-metadata.json")) {
      root = new ObjectMapper().readTree(in);
    }
    List<String> resources = new ArrayList<>();
    root.get("resources").forEach(r -> resources.add(r.get("glob").asText()));
    List<String> types = new ArrayList<>();
    root.get("reflection").forEach(r -> types.add(r.get("type").asText()));

    assertThat(resources)
        .containsExactlyInAnyOrder(WovenMethods.RESOURCE, PropertiesConfigLoader.RESOURCE);
    assertThat(types)
        .containsExactlyInAnyOrder(
            "tools.jackson.databind.ObjectMapper", "com.fasterxml.jackson.databind.ObjectMapper");
    for (String type : types) {
      assertThat(Class.forName(type, false, getClass().getClassLoader())).isNotNull();
    }
  }
}
