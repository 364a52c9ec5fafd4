package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spring.IdempotencyActuatorAutoConfiguration;
import dev.idempotent.spring.IdempotencyAutoConfiguration;
import dev.idempotent.spring.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMemoryStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyMicrometerAutoConfiguration;
import dev.idempotent.spring.IdempotencyRedissonStoreAutoConfiguration;
import dev.idempotent.spring.IdempotencyWebMvcAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An application without Micrometer starts with every auto-configuration of the starter and its
 * calls are protected. Run only by the {@code without-micrometer} execution of surefire, whose
 * class path has no Micrometer (idempotent-micrometer, which the starter brings, is there without
 * it).
 */
class WithoutMicrometerTest {

  @Test
  void anApplicationWithoutMicrometerStartsAndItsCallsAreProtected() {
    assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry"))
        .as("this test's class path must not have Micrometer")
        .isInstanceOf(ClassNotFoundException.class);
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Application.class)
            .web(WebApplicationType.NONE)
            .properties("spring.main.banner-mode=off")
            .run()) {
      assertThat(Idempotency.global().config().defaultStore())
          .isInstanceOf(CaffeineIdempotencyStore.class);
      assertThat(context.containsBean("micrometerIdempotencyListener")).isFalse();
      assertThat(context.containsBean("idempotencyHealthIndicator")).isTrue();
      Greeter greeter = context.getBean(Greeter.class);
      assertThat(greeter.greet("eve")).isEqualTo(greeter.greet("eve"));
      assertThat(greeter.executions()).isEqualTo(1);
    }
  }

  /** Every auto-configuration of the starter, read by name as in any application. */
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
  @Import(Greeter.class)
  static class Application {}
}
