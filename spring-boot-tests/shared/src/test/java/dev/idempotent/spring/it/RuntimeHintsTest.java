package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spring.IdempotencyActuatorAutoConfiguration;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import dev.idempotent.spring.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMicrometerAutoConfiguration;
import dev.idempotent.spring.IdempotencyProperties;
import dev.idempotent.spring.IdempotencyRedissonStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyWebMvcAutoConfiguration;
import dev.idempotent.spring.internal.IdempotencyRuntimeHints;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * The starter's Spring AOT hints: what its registrar registers, and that Spring's AOT processing of
 * an application with the starter's auto-configurations (run here on the JVM) picks them up.
 */
class RuntimeHintsTest {

  @Test
  void theRegistrarRegistersTheResourcesTypesAndBindingsTheStarterReadsAtRunTime() {
    RuntimeHints hints = new RuntimeHints();
    new IdempotencyRuntimeHints().registerHints(hints, getClass().getClassLoader());

    assertStarterHints(hints);
  }

  @Test
  void aheadOfTimeProcessingOfAnApplicationWithTheStarterCarriesItsHints() {
    GenericApplicationContext context = new GenericApplicationContext();
    AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
    context.registerBean(Application.class);
    InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
    DefaultGenerationContext generation =
        new DefaultGenerationContext(
            new ClassNameGenerator(ClassName.get(Application.class)), files);

    new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
    generation.writeGeneratedContent();

    assertStarterHints(generation.getRuntimeHints());
    assertThat(files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE)).isNotEmpty();
  }

  private static void assertStarterHints(RuntimeHints hints) {
    assertThat(RuntimeHintsPredicates.resource().forResource("idempotent.properties"))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/idempotent/methods"))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.resource()
                .forResource("dev/idempotent/jdbc/schema-postgresql.sql"))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.resource()
                .forResource("META-INF/services/dev.idempotent.spi.IdempotencyStoreProvider"))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onType(TypeReference.of("dev.idempotent.jdbc.internal.JdbcStoreProvider"))
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onType(TypeReference.of("tools.jackson.databind.ObjectMapper")))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(IdempotencyProperties.class))
        .accepts(hints);
  }

  /** The starter's auto-configurations, as an application gets them. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    IdempotencyAutoConfiguration.class,
    IdempotencyRedissonStoreAutoConfiguration.class,
    IdempotencyJdbcStoreAutoConfiguration.class,
    IdempotencyMemoryStoreAutoConfiguration.class,
    IdempotencyMicrometerAutoConfiguration.class,
    IdempotencyWebMvcAutoConfiguration.class,
    IdempotencyActuatorAutoConfiguration.class
  })
  static class Application {}
}
