package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyListener;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spring.IdempotencyEndpoint;
import dev.idempotent.spring.IdempotencyProblemDetails;
import dev.idempotent.web.IdempotencyFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/**
 * The conditions: what the starter configures from properties and beans, and that the application's
 * beans win.
 */
class AutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(StarterAutoConfigurations.all())
          .withBean(Greeter.class);

  @Test
  void withNoConfigurationTheMemoryStoreIsUsed() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          Idempotency installed = context.getBean(Idempotency.class);
          assertThat(Idempotency.global()).isSameAs(installed);
          assertThat(installed.config().defaultStore())
              .isInstanceOf(CaffeineIdempotencyStore.class);
          Greeter greeter = context.getBean(Greeter.class);
          assertThat(greeter.greet("ann")).isEqualTo(greeter.greet("ann"));
          assertThat(greeter.executions()).isEqualTo(1);
        });
  }

  @Test
  void propertiesBindWithTheSameKeysAsIdempotencyProperties() {
    runner
        .withPropertyValues(
            "idempotent.ttl=2h",
            "idempotent.lease=45s",
            "idempotent.wait-timeout=3s",
            "idempotent.on-store-failure=fail-open",
            "idempotent.codec.type=java",
            "idempotent.codec.allow=com.example.orders.*")
        .run(
            context -> {
              IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
              assertThat(config.defaultTtl()).isEqualTo(Duration.ofHours(2));
              assertThat(config.defaultLease()).isEqualTo(Duration.ofSeconds(45));
              assertThat(config.defaultWaitTimeout()).isEqualTo(Duration.ofSeconds(3));
              assertThat(config.storeFailurePolicy()).hasToString("FAIL_OPEN");
              assertThat(config.codec().getClass().getSimpleName())
                  .isEqualTo("JavaSerializationCodec");
            });
    runner
        .withPropertyValues("idempotent.codec.type=xml")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "Failed to bind properties under 'idempotent.codec.type'"));
  }

  @Test
  void theNearCacheSettingsBindAndTheMemoryStoreGetsNone() {
    runner
        .withPropertyValues(
            "idempotent.near-cache.maximum-size=5000", "idempotent.near-cache.expire-after=1m")
        .run(
            context -> {
              IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
              assertThat(config.nearCacheMaximumSize()).isEqualTo(5000);
              assertThat(config.nearCacheExpireAfter()).isEqualTo(Duration.ofMinutes(1));
              assertThat(config.defaultStore()).isInstanceOf(CaffeineIdempotencyStore.class);
            });
    runner
        .withPropertyValues("idempotent.near-cache.maximum-size=-1")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "idempotent.near-cache.maximum-size=-1 is out of range: write a whole"
                            + " number from 0 to"));
  }

  @Test
  void theJacksonCodecUsesTheApplicationsObjectMapper() throws Exception {
    ObjectMapper mine =
        new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE);
    runner
        .withBean(ObjectMapper.class, () -> mine)
        .withPropertyValues("idempotent.codec.type=jackson")
        .run(
            context -> {
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              context
                  .getBean(IdempotencyConfig.class)
                  .codec()
                  .encode(new OrderRequest("pen", 2), OrderRequest.class, out);
              assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"Item\":\"pen\"");
            });
  }

  @Test
  void theApplicationsStoreBeanWinsAndEveryStoreBeanIsANamedStore() {
    IdempotencyStore mine = CaffeineIdempotencyStore.builder().build();
    IdempotencyStore second = CaffeineIdempotencyStore.builder().build();
    runner
        .withBean("myStore", IdempotencyStore.class, () -> mine, d -> d.setPrimary(true))
        .withBean("secondStore", IdempotencyStore.class, () -> second)
        .run(
            context -> {
              assertThat(context).doesNotHaveBean("idempotencyStore");
              IdempotencyConfig config = context.getBean(IdempotencyConfig.class);
              assertThat(config.defaultStore()).isSameAs(mine);
              assertThat(config.store("secondStore")).isSameAs(second);
              context.getBean(Greeter.class).greetInSecondStore("bob");
              assertThat(second.read(RecordKey.of("greet-second", "bob"))).isPresent();
              assertThat(mine.read(RecordKey.of("greet-second", "bob"))).isEmpty();
            });
  }

  @Test
  void severalStoreBeansWithoutAPrimaryOneAreAnErrorThatSaysWhatToDo() {
    runner
        .withBean("a", IdempotencyStore.class, () -> CaffeineIdempotencyStore.builder().build())
        .withBean("b", IdempotencyStore.class, () -> CaffeineIdempotencyStore.builder().build())
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("@Primary")
                    .hasMessageContaining("[a, b]"));
  }

  @Test
  void theApplicationsConfigBeanIsInstalledAsItIs() {
    IdempotencyConfig mine =
        IdempotencyConfig.builder()
            .defaultStore(CaffeineIdempotencyStore.builder().build())
            .defaultTtl(Duration.ofMinutes(7))
            .build();
    runner
        .withBean(IdempotencyConfig.class, () -> mine)
        .run(context -> assertThat(Idempotency.global().config()).isSameAs(mine));
  }

  @Test
  void keyResolverBeansServeTheirClassInTheAnnotation() {
    runner
        .withBean(TenantKeyResolver.class, () -> new TenantKeyResolver("acme"))
        .run(
            context -> {
              context.getBean(Greeter.class).greetResolved("cy");
              assertThat(
                      Idempotency.global()
                          .config()
                          .defaultStore()
                          .read(RecordKey.of("greet-resolved", "acme:cy")))
                  .isPresent();
            });
  }

  @Test
  void listenerBeansHearTheEventsAndAMeterRegistryCountsThem() {
    List<IdempotencyEvent.Type> heard = new CopyOnWriteArrayList<>();
    IdempotencyListener listener = e -> heard.add(e.type());
    runner
        .withBean(IdempotencyListener.class, () -> listener)
        .withBean(SimpleMeterRegistry.class)
        .run(
            context -> {
              Greeter greeter = context.getBean(Greeter.class);
              greeter.greet("dee");
              greeter.greet("dee");
              assertThat(heard)
                  .contains(IdempotencyEvent.Type.EXECUTED, IdempotencyEvent.Type.REPLAYED);
              SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
              assertThat(
                      registry
                          .get("idempotent.calls")
                          .tag("scope", "greet")
                          .tag("outcome", "executed")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              assertThat(
                      registry
                          .get("idempotent.calls")
                          .tag("scope", "greet")
                          .tag("outcome", "replayed")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
            });
  }

  @Test
  void theHealthIndicatorOfThisBootLineIsRegistered() {
    runner.run(context -> assertThat(context).hasBean("idempotencyHealthIndicator"));
    runner
        .withPropertyValues("management.health.idempotency.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("idempotencyHealthIndicator"));
  }

  @Test
  void withoutTheActuatorThereIsNoHealthComponentAndNoEndpoint() {
    runner.run(context -> assertThat(context).hasSingleBean(IdempotencyEndpoint.class));
    runner
        // the actuator, and Boot 4's health module (Boot 3's health types are the actuator's)
        .withClassLoader(
            new FilteredClassLoader(
                "org.springframework.boot.actuate", "org.springframework.boot.health"))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean("idempotencyHealthIndicator");
              assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class);
            });
  }

  @Test
  void anUnreachableRedisFailsStartUpWithTheReason() {
    runner
        .withPropertyValues(
            "idempotent.store=redisson",
            "idempotent.redisson.address=redis://127.0.0.1:1",
            "idempotent.redisson.timeout=500ms")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context)
                  .getFailure()
                  .hasStackTraceContaining("cannot use Redis at redis://127.0.0.1:1");
              assertThat(context.getStartupFailure()).hasMessageContaining("idempotency");
            });
  }

  @Test
  void withFailFastOffAnUnreachableRedisIsMetByTheCalls() {
    runner
        .withPropertyValues(
            "idempotent.store=redisson",
            "idempotent.redisson.address=redis://127.0.0.1:1",
            "idempotent.redisson.timeout=500ms",
            "idempotent.fail-fast=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void problemDetailsAndTheFilterAreForServletApplications() {
    WebApplicationContextRunner web =
        new WebApplicationContextRunner().withConfiguration(StarterAutoConfigurations.all());
    web.run(
        context -> {
          assertThat(context).hasSingleBean(IdempotencyProblemDetails.class);
          assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
        });
    web.withPropertyValues("idempotent.web.paths=/api/*", "idempotent.web.key=required")
        .run(context -> assertThat(context).hasSingleBean(FilterRegistrationBean.class));
    web.withPropertyValues("idempotent.web.paths=/api/*")
        .withClassLoader(new FilteredClassLoader(IdempotencyFilter.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
            });
    web.withPropertyValues("idempotent.problem-details.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(IdempotencyProblemDetails.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(IdempotencyProblemDetails.class));
  }
}
