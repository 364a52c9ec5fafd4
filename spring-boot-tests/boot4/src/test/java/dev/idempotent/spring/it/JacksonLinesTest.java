package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.IdempotencyConfig;
import dev.idempotent.ResultCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * Boot 4 with both Jackson lines on the class path: the jackson codec works on the application's
 * Jackson 3 {@code JsonMapper} when it has one, else on its Jackson 2 {@code ObjectMapper}; with
 * neither bean, on the library's own Jackson 3 mapper.
 */
class JacksonLinesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withPropertyValues("idempotent.codec.type=jackson");

  private final JsonMapper jackson3 =
      JsonMapper.builder()
          .propertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE)
          .build();

  private final com.fasterxml.jackson.databind.ObjectMapper jackson2 =
      new com.fasterxml.jackson.databind.ObjectMapper()
          .setPropertyNamingStrategy(
              com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE);

  @Test
  void withBothMappersTheJackson3OneIsUsed() {
    runner
        .withBean(JsonMapper.class, () -> jackson3)
        .withBean(com.fasterxml.jackson.databind.ObjectMapper.class, () -> jackson2)
        .run(
            context -> {
              ResultCodec codec = context.getBean(IdempotencyConfig.class).codec();
              assertThat(codec.format()).isEqualTo("jackson3");
              assertThat(json(codec)).isEqualTo("{\"Item\":\"pen\",\"Quantity\":2}");
            });
  }

  @Test
  void withOnlyAJackson2MapperItIsUsed() {
    runner
        .withBean(com.fasterxml.jackson.databind.ObjectMapper.class, () -> jackson2)
        .run(
            context -> {
              ResultCodec codec = context.getBean(IdempotencyConfig.class).codec();
              assertThat(codec.format()).isEqualTo("jackson2");
              assertThat(json(codec)).isEqualTo("{\"item\":\"pen\",\"quantity\":2}");
            });
  }

  @Test
  void withNoMapperBeanTheLibrarysOwnJackson3MapperIsUsed() {
    runner.run(
        context ->
            assertThat(context.getBean(IdempotencyConfig.class).codec().format())
                .isEqualTo("jackson3"));
  }

  private static String json(ResultCodec codec) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    codec.encode(new OrderRequest("pen", 2), OrderRequest.class, out);
    return out.toString(StandardCharsets.UTF_8);
  }
}
