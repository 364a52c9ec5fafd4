package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * A wrong value of an enumerated property fails start-up, and the report Spring Boot prints says
 * which property and lists the values allowed.
 */
@ExtendWith(OutputCaptureExtension.class)
class PropertyValidationTest {

  @ParameterizedTest
  @CsvSource({
    "idempotent.on-store-failure, sometimes, FAIL_CLOSED, FAIL_OPEN, FAIL_OPEN",
    "idempotent.codec.type, xml, JAVA, JACKSON, JACKSON"
  })
  void aWrongValueFailsStartUpListingTheValuesAllowed(
      String property,
      String value,
      String allowed1,
      String allowed2,
      String allowed3,
      CapturedOutput output) {
    SpringApplicationBuilder application =
        new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties(property + "=" + value);
    assertThatThrownBy(application::run).hasStackTraceContaining(property);
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains(property)
        .contains(value)
        .contains("The following values are valid")
        .contains(allowed1, allowed2, allowed3);
  }

  @Test
  void aStoreThatIsNotOnTheClasspathFailsStartUpNamingTheSettingAndTheStoresFound() {
    SpringApplicationBuilder application =
        new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties("idempotent.store=redis");
    assertThatThrownBy(application::run)
        .hasStackTraceContaining(
            "idempotent.store=redis but no such store module is on the classpath")
        .hasStackTraceContaining("add idempotent-store-redis");
  }

  @Test
  void aTypedValueTheLibraryRefusesFailsStartUpNamingThePropertyAndWhatToWrite() {
    new WebApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withPropertyValues("idempotent.lease=0s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "idempotent.lease=0s is not positive: write a positive duration"));
    new WebApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withPropertyValues("idempotent.web.paths=/api/*", "idempotent.web.retry-after=0s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "idempotent.web.retry-after=0s: retryAfter must be positive"));
  }

  @Test
  void theListFormOfTheWebRulesFailsStartUpSayingWhatToWriteInBoot() {
    new WebApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withPropertyValues("idempotent.web.rules=api,checkout")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("idempotent.web.rules=api,checkout lists rule names")
                    .hasStackTraceContaining("idempotent.web.order=api,checkout"));
  }

  @Test
  void theReportInTheDocsIsTheOneBootPrints(CapturedOutput output) throws IOException {
    String marker =
        "<!-- tested-by: spring-boot-tests/shared/src/test/java/dev/idempotent/spring/it/"
            + "PropertyValidationTest.java -->";
    String doc =
        Files.readString(
            Path.of("").toAbsolutePath().getParent().getParent().resolve("docs/spring-boot.md"));
    int at = doc.indexOf(marker);
    assertThat(at).as("the marker in docs/spring-boot.md").isNotNegative();
    int open = doc.indexOf("```\n", at) + 4;
    String block = doc.substring(open, doc.indexOf("```", open));
    SpringApplicationBuilder application =
        new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties("idempotent.on-store-failure=sometimes");
    assertThatThrownBy(application::run).isNotNull();
    for (String line : block.split("\n")) {
      if (!line.isBlank() && !line.strip().equals("...")) {
        assertThat(output).as("the documented line '%s'", line).contains(line.strip());
      }
    }
  }

  @Test
  void theLibrarysOwnSpellingAndAnyCaseAreAccepted() {
    new WebApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withPropertyValues(
            "idempotent.store=Memory",
            "idempotent.on-store-failure=fail-open",
            "idempotent.codec.type=JAVA")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aWrongValueOfAWebRuleFailsStartUpListingTheValuesAllowed() {
    new WebApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withPropertyValues("idempotent.web.paths=/api/*", "idempotent.web.anonymous=nobody")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("idempotent.web.anonymous")
                    .hasStackTraceContaining("nobody"));
  }

  /** Only the starter's auto-configurations, as every application gets them. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    dev.idempotent.spring.IdempotencyAutoConfiguration.class,
    dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration.class
  })
  static class Application {}
}
