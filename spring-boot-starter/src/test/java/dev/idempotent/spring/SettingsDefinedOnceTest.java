package dev.idempotent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.http.internal.RuleProperties;
import dev.idempotent.internal.PropertiesConfigLoader;
import dev.idempotent.spi.IdempotencyStoreProvider;
import dev.idempotent.spi.Setting;
import dev.idempotent.spring.internal.TypedSettings;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;

/**
 * Every setting is defined once ({@link Setting}: core's {@code PropertiesConfigLoader.SETTINGS}
 * and each store provider's {@code settings()}); the starter's typed properties, the metadata the
 * configuration processor generates from them and the reference tables of the docs are checked here
 * against those definitions, so that none of them can drift.
 */
class SettingsDefinedOnceTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Map<String, JsonNode> METADATA = new LinkedHashMap<>();

  /**
   * The starter's own settings, which no other module reads: they are defined by its fields. The
   * observation settings configure the observer the starter builds; without Spring an application
   * gives the same choices to {@code ObservationIdempotencyObserver}'s builder.
   */
  private static final Set<String> STARTER_ONLY =
      Set.of(
          "idempotent.fail-fast",
          "idempotent.problem-details.enabled",
          "idempotent.observations.enabled",
          "idempotent.observations.key-digest",
          "idempotent.observations.store-round-trips");

  @BeforeAll
  static void readTheGeneratedMetadata() throws IOException {
    try (InputStream in =
        SettingsDefinedOnceTest.class
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the metadata the configuration processor generated").isNotNull();
      new ObjectMapper()
          .readTree(in)
          .get("properties")
          .forEach(p -> METADATA.put(p.get("name").asText(), p));
    }
  }

  /**
   * Every definition: core's and those of each store provider on the classpath, with the typed
   * properties that stand for it (a store's are found in its auto-configuration class).
   */
  static Map<Setting<?>, Object> definitions() {
    Map<Setting<?>, Object> all = new LinkedHashMap<>();
    PropertiesConfigLoader.SETTINGS.forEach(s -> all.put(s, new IdempotencyProperties()));
    Map<String, IdempotencyStoreProperties> stores = storeProperties();
    for (IdempotencyStoreProvider p : ServiceLoader.load(IdempotencyStoreProvider.class)) {
      IdempotencyStoreProperties properties = stores.get(p.name());
      assertThat(properties)
          .as("typed properties (IdempotencyStoreProperties) of the store %s", p.name())
          .isNotNull();
      p.settings().forEach(s -> all.put(s, properties));
    }
    return all;
  }

  /** The store properties nested in the imported auto-configurations, by store name. */
  private static Map<String, IdempotencyStoreProperties> storeProperties() {
    Map<String, IdempotencyStoreProperties> found = new LinkedHashMap<>();
    try (InputStream in =
        SettingsDefinedOnceTest.class
            .getClassLoader()
            .getResourceAsStream(
                "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      for (String line :
          new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        Class<?>[] nestedClasses;
        try {
          nestedClasses = Class.forName(line.strip()).getDeclaredClasses();
        } catch (LinkageError missing) {
          continue; // an integration whose library is not on this class path: no store of its own
        }
        for (Class<?> nested : nestedClasses) {
          if (IdempotencyStoreProperties.class.isAssignableFrom(nested)) {
            IdempotencyStoreProperties p =
                (IdempotencyStoreProperties) nested.getDeclaredConstructor().newInstance();
            found.put(p.storeName(), p);
          }
        }
      }
    } catch (ReflectiveOperationException | IOException e) {
      throw new AssertionError(e);
    }
    return found;
  }

  @Test
  void everyStoreOnTheClasspathDefinesItsSettings() {
    Set<String> prefixes = new TreeSet<>();
    definitions().keySet().forEach(s -> prefixes.add(s.name().replaceAll("\\.[a-z0-9-]+$", "")));
    assertThat(prefixes).contains("idempotent.memory", "idempotent.redisson", "idempotent.jdbc");
  }

  @Test
  void eachDefinitionHasItsTypedPropertyWithTheSameTypeDescriptionAndDefault() {
    List<String> problems = new ArrayList<>();
    definitions()
        .forEach(
            (s, properties) -> {
              JsonNode p = METADATA.get(s.name());
              if (p == null) {
                problems.add(s.name() + ": no property in the generated metadata");
                return;
              }
              if (!p.path("type").asText().equals(metadataType(s))) {
                problems.add(
                    s.name()
                        + ": type "
                        + p.path("type").asText()
                        + ", defined "
                        + metadataType(s));
              }
              String description = p.path("description").asText().replaceAll("\\s+", " ");
              if (!description.equals(s.description())) {
                problems.add(
                    s.name()
                        + ": the field's javadoc says\n  "
                        + description
                        + "\n  the definition\n  "
                        + s.description());
              }
              String defaultValue = p.has("defaultValue") ? p.get("defaultValue").asText() : "";
              if (s.type() == List.class) {
                defaultValue = defaultValue.replace("[]", "");
              }
              if (!defaultValue.equals(s.defaultText())) {
                problems.add(
                    s.name()
                        + ": default '"
                        + defaultValue
                        + "', defined '"
                        + s.defaultText()
                        + "'");
              }
            });
    assertThat(problems).as("typed properties against the definitions").isEmpty();
  }

  @Test
  void everyTypedPropertyOfTheLibraryIsADefinedSetting() {
    Set<String> defined = new TreeSet<>();
    definitions().keySet().forEach(s -> defined.add(s.name()));
    List<String> undefined = new ArrayList<>();
    for (String name : METADATA.keySet()) {
      if (name.startsWith("idempotent.")
          && !name.startsWith("idempotent.web.")
          && !name.startsWith("idempotent.messaging.")
          && !STARTER_ONLY.contains(name)
          && !defined.contains(name)) {
        undefined.add(name);
      }
    }
    assertThat(undefined).as("typed properties that no Setting defines").isEmpty();
  }

  @Test
  void theTypedValuesReachTheLibraryAsTheyAre() {
    IdempotencyProperties properties = new IdempotencyProperties();
    properties.setTtl(Duration.ofHours(48));
    properties.getNearCache().setMaximumSize(500);
    Map<String, Object> typed =
        TypedSettings.of(properties, "idempotent", PropertiesConfigLoader.SETTINGS);
    assertThat(typed.get("idempotent.ttl")).isSameAs(properties.getTtl());
    assertThat(typed.get("idempotent.near-cache.maximum-size")).isEqualTo(500);
    var config =
        PropertiesConfigLoader.builder(TypedSettings.typed(typed))
            .defaultStore(dev.idempotent.memory.CaffeineIdempotencyStore.builder().build())
            .build();
    assertThat(config.defaultTtl()).isEqualTo(Duration.ofHours(48));
    assertThat(config.nearCacheMaximumSize()).isEqualTo(500);
  }

  @Test
  void aBadTypedValueIsRefusedNamingThePropertyAndWhatToWrite() {
    IdempotencyProperties properties = new IdempotencyProperties();
    properties.setLease(Duration.ZERO);
    var settings =
        TypedSettings.typed(
            TypedSettings.of(properties, "idempotent", PropertiesConfigLoader.SETTINGS));
    assertThatThrownBy(() -> PropertiesConfigLoader.builder(settings))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent.lease=0s is not positive: write a positive duration")
        .hasMessageContaining("(default 30s)");

    var jdbc = new IdempotencyJdbcStoreAutoConfiguration.JdbcProperties();
    jdbc.setPoolSize(0);
    jdbc.setUrl("jdbc:h2:mem:x");
    assertThatThrownBy(() -> dev.idempotent.spring.internal.StoresFromSettings.create(jdbc))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(
            "idempotent.jdbc.pool-size=0 is out of range: write a whole number from 1 to 1000"
                + " (default 10)");
  }

  @Test
  void theWebRulePropertiesAreTheWebRuleSettings() {
    Set<String> typed = new TreeSet<>();
    for (PropertyDescriptor d :
        new BeanWrapperImpl(new WebRuleProperties()).getPropertyDescriptors()) {
      if (!d.getName().equals("class")) {
        typed.add(d.getName().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT));
      }
    }
    assertThat(typed).containsExactlyInAnyOrderElementsOf(RuleProperties.RULE_SETTINGS);
    for (String name : RuleProperties.RULE_SETTINGS) {
      assertThat(METADATA)
          .as("metadata of idempotent.web.%s", name)
          .containsKey("idempotent.web." + name);
      assertThat(METADATA.get("idempotent.web." + name).path("description").asText())
          .as(name)
          .isNotBlank();
    }
    assertThat(METADATA)
        .containsKeys(
            "idempotent.web.rules", "idempotent.web.order", "idempotent.web.problem-type-base");
  }

  @Test
  void theConfigurationReferenceHasARowForEachDefinitionWithItsDefault() throws IOException {
    String table = section("docs/configuration.md", "## Properties");
    List<String> problems = new ArrayList<>();
    Set<String> defined = new TreeSet<>();
    for (Setting<?> s : definitions().keySet()) {
      defined.add(s.name());
      Matcher row =
          Pattern.compile("(?m)^\\| `" + Pattern.quote(s.name()) + "` \\|([^|]*)\\|")
              .matcher(table);
      if (!row.find()) {
        problems.add(s.name() + ": no row | `" + s.name() + "` | default | meaning |");
        continue;
      }
      String cell = row.group(1).strip();
      String expected = s.defaultText().isEmpty() ? "" : "`" + s.defaultText() + "`";
      boolean agrees =
          expected.isEmpty()
              ? !cell.startsWith("`")
              : cell.equals(expected) || cell.startsWith(expected + " ");
      if (!agrees) {
        problems.add(s.name() + ": the table's default is '" + cell + "', defined " + expected);
      }
    }
    Matcher named = Pattern.compile("(?m)^\\| `(idempotent\\.[^`]+)` \\|").matcher(table);
    while (named.find()) {
      if (!defined.contains(named.group(1))) {
        problems.add(named.group(1) + " has a row but no definition");
      }
    }
    assertThat(problems).as("docs/configuration.md against the definitions").isEmpty();
  }

  @Test
  void theStarterPageListsEachPropertyThatIsNotInTheReference() throws IOException {
    String table = section("docs/spring-boot.md", "## Properties");
    for (String name : STARTER_ONLY) {
      assertThat(table).contains("| `" + name + "` |");
    }
    assertThat(table).contains("| `idempotent.web.*` |").contains("configuration.md");
  }

  @Test
  void theMessagingDefaultsAreTheLibrarysAndReachTheMetadata() {
    var messaging = new dev.idempotent.spring.messaging.IdempotentMessagingProperties();
    assertThat(messaging.getInProgressWait())
        .isEqualTo(dev.idempotent.messaging.MessageIdempotency.DEFAULT_IN_PROGRESS_WAIT);
    assertThat(messaging.getCamel().getLease())
        .isEqualTo(dev.idempotent.IdempotencyConfig.DEFAULT_LEASE);
    assertThat(messaging.getCamel().getTtl())
        .isEqualTo(dev.idempotent.IdempotencyConfig.DEFAULT_TTL);
    assertThat(METADATA.get("idempotent.messaging.in-progress-wait").path("defaultValue").asText())
        .isEqualTo("5s");
    assertThat(METADATA.get("idempotent.messaging.camel.ttl").path("defaultValue").asText())
        .isEqualTo("24h");
  }

  /**
   * Spring Boot reads an environment variable as the setting it spells ({@code IDEMPOTENT_NATS_URL}
   * is {@code idempotent.nats.url}), so a variable the build exports for its test services must not
   * spell one, or it would configure every Boot test that runs under it.
   */
  @Test
  void noVariableTheBuildExportsSpellsASetting() throws IOException {
    Matcher m =
        Pattern.compile("\\b(IDEMPOTENT_[A-Z0-9_]+)")
            .matcher(Files.readString(ROOT.resolve(".ci/run")));
    Set<String> variables = new TreeSet<>();
    while (m.find()) {
      variables.add(m.group(1));
    }
    assertThat(variables).as("the variables .ci/run exports").contains("IDEMPOTENT_REDIS_URL");
    Set<String> settings = new TreeSet<>();
    METADATA.keySet().forEach(name -> settings.add(name.replace("-", "")));
    for (String variable : variables) {
      String spelled = variable.toLowerCase(java.util.Locale.ROOT).replace('_', '.');
      assertThat(settings)
          .as("%s is Boot's spelling of a setting: rename it", variable)
          .doesNotContain(spelled);
    }
  }

  private static String metadataType(Setting<?> s) {
    if (s.type() == List.class) {
      return "java.util.List<java.lang.String>";
    }
    return s.type().getName();
  }

  private static String section(String page, String heading) throws IOException {
    String text = Files.readString(ROOT.resolve(page)).replace("\r\n", "\n");
    int start = text.indexOf("\n" + heading + "\n");
    assertThat(start).as("%s has the heading %s", page, heading).isNotNegative();
    int end = text.indexOf("\n## ", start + heading.length() + 2);
    return text.substring(start, end < 0 ? text.length() : end);
  }
}
