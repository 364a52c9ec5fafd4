package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spring.IdempotencyEndpoint;
import dev.idempotent.spring.IdempotencyStartupAutoConfiguration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * One INFO line when the application starts: the store and its address without credentials, the
 * codec, the web rules (a WARN for a rule that lets keyless requests through) and the adapters; the
 * same facts in the actuator endpoint. Neither credentials nor key text appear.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupReportTest {
  private static final String PASSWORD = "PASSWORDTEXT-7f3a";

  /** Recognisable text, unique to the run: the table keeps the records of earlier runs. */
  private static final String KEY = "KEYTEXT-customer-4711-" + System.nanoTime();

  @Test
  void oneLineSaysWhatWasSetUpWithoutCredentialsOrKeys(CapturedOutput output) {
    new WebApplicationContextRunner()
        .withConfiguration(StarterAutoConfigurations.all())
        .withConfiguration(AutoConfigurations.of(IdempotencyStartupAutoConfiguration.class))
        .withBean(Greeter.class)
        .withPropertyValues(
            "idempotent.jdbc.url=" + TestServices.postgres() + "&password=" + PASSWORD,
            "idempotent.web.paths=/api/*")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              context.getBean(Greeter.class).greet(KEY);
              @SuppressWarnings("unchecked")
              Map<String, Object> setup =
                  (Map<String, Object>)
                      context
                          .getBean(IdempotencyEndpoint.class)
                          .record(null, null, null, null, null, null)
                          .get("setup");
              assertThat(setup).containsKeys("store", "codec", "webRules", "adapters");
              assertThat(setup.toString()).doesNotContain(PASSWORD).doesNotContain("user=");
            });
    assertThat(output.getOut().lines().filter(l -> l.contains("idempotency: store")))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains("JdbcIdempotencyStore jdbc:postgresql://")
                    .contains("codec")
                    .contains("key=optional")
                    .contains("adapters [method, http]"));
    assertThat(output.getOut()).contains("lets requests without an Idempotency-Key through");
    assertThat(output.getAll()).doesNotContain(PASSWORD).doesNotContain("KEYTEXT-customer");
  }
}
