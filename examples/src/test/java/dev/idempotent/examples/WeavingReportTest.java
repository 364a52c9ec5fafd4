package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.internal.WovenMethods;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * This module is built as the README says (ajc with idempotent-core as an aspect library), so the
 * annotation processor records its methods and the weaving report finds every one of them woven.
 */
class WeavingReportTest {
  @AfterEach
  void clear() {
    System.clearProperty("idempotent.require-woven");
    Idempotency.reset();
  }

  @Test
  void theProcessorRecordedTheMethodsOfThisModule() throws IOException {
    List<String> lines = new ArrayList<>();
    for (URL url :
        Collections.list(getClass().getClassLoader().getResources(WovenMethods.RESOURCE))) {
      try (InputStream in = url.openStream()) {
        lines.addAll(List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")));
      }
    }

    assertThat(lines)
        .contains(
            "dev.idempotent.examples.OrderService\tsubmitOrder\t(java.lang.String,"
                + " dev.idempotent.examples.OrderRequest)",
            "dev.idempotent.examples.WovenFeatures\tstaticMethod\t(java.lang.String)",
            "dev.idempotent.examples.WovenFeatures\tprivateMethod\t(java.lang.String)");
  }

  @Test
  void noWovenMethodIsReported() {
    assertThat(WovenMethods.unwoven(getClass().getClassLoader())).isEmpty();
  }

  @Test
  void requiringWovenMethodsPassesInAWovenModule() {
    System.setProperty("idempotent.require-woven", "true");
    IdempotencyConfig config = IdempotencyConfig.fromProperties();

    assertThat(config.requireWoven()).isTrue();
    assertThat(Idempotency.install(config).verify()).isNotNull();
  }

  @Test
  void theBuildCheckInTheDocsIsTheOneThisModuleRuns() throws IOException {
    Path module = Path.of("").toAbsolutePath();
    String pom = Files.readString(module.resolve("pom.xml"));
    String begin = "<!-- docs/weaving.md: weaving check (begin) -->";
    String end = "<!-- docs/weaving.md: weaving check (end) -->";
    int b = pom.indexOf(begin);
    int e = pom.indexOf(end, b);
    assertThat(b).isNotNegative();
    assertThat(e).isGreaterThan(b);
    String block = pom.substring(b + begin.length(), e);
    String docs = Files.readString(module.getParent().resolve("docs/weaving.md"));
    assertThat(docs.replaceAll("\\s+", " ")).contains(block.replaceAll("\\s+", " ").trim());
  }

  @Test
  void theBuildCheckPassesInAWovenModule() {
    WovenMethods.main(new String[0]);
  }

  @Test
  void requireWovenIsABoolean() {
    System.setProperty("idempotent.require-woven", "yes");

    assertThatThrownBy(IdempotencyConfig::fromProperties)
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.require-woven=yes is not true or false");
  }
}
