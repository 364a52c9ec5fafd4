package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.spring.IdempotencyActuatorAutoConfiguration;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import dev.idempotent.spring.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMicrometerAutoConfiguration;
import dev.idempotent.spring.IdempotencyRedissonStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyWebMvcAutoConfiguration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A Boot 4 application with Jackson 3 only (no {@code com.fasterxml.jackson.core:jackson-databind})
 * starts with every auto-configuration of the starter, and the jackson codec records and replays a
 * result that is not {@code Serializable} with Boot's {@code JsonMapper}. Run only by the {@code
 * jackson3-only} execution of surefire, whose class path has no Jackson 2 databind.
 */
class Jackson3OnlyTest {

  @Test
  void anApplicationWithJackson3OnlyRecordsResultsWithBootsJsonMapper() throws Exception {
    assertThatThrownBy(() -> Class.forName("com.fasterxml.jackson.databind.ObjectMapper"))
        .as("this test's class path must not have Jackson 2 databind")
        .isInstanceOf(ClassNotFoundException.class);
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.main.banner-mode=off",
                "idempotent.codec.type=jackson",
                "spring.jackson.property-naming-strategy=UPPER_CAMEL_CASE")
            .run()) {
      Idempotency idempotency = Idempotency.global();
      assertThat(idempotency.config().codec().format()).isEqualTo("jackson3");
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder("jackson3.only").resultType(OrderRequest.class).build();
      AtomicInteger runs = new AtomicInteger();
      OrderRequest first =
          idempotency.execute(policy, "k", () -> new OrderRequest("pen", runs.incrementAndGet()));
      OrderRequest replay =
          idempotency.execute(policy, "k", () -> new OrderRequest("pen", runs.incrementAndGet()));
      assertThat(replay).isEqualTo(first).isEqualTo(new OrderRequest("pen", 1));
      assertThat(runs).hasValue(1);
      Greeter greeter = context.getBean(Greeter.class);
      assertThat(greeter.greet("eve")).isEqualTo(greeter.greet("eve"));
      assertThat(greeter.executions()).isEqualTo(1);
    }
  }

  /** Boot's Jackson 3 configuration and every auto-configuration of the starter. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    JacksonAutoConfiguration.class,
    IdempotencyAutoConfiguration.class,
    IdempotencyRedissonStoreAutoConfiguration.class,
    IdempotencyJdbcStoreAutoConfiguration.class,
    IdempotencyMemoryStoreAutoConfiguration.class,
    IdempotencyMicrometerAutoConfiguration.class,
    IdempotencyWebMvcAutoConfiguration.class,
    IdempotencyActuatorAutoConfiguration.class
  })
  @Import(Greeter.class)
  static class Application {}
}
