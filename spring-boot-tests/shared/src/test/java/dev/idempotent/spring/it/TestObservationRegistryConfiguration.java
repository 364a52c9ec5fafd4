package dev.idempotent.spring.it;

import io.micrometer.observation.tck.TestObservationRegistry;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** The application's observation registry, one that keeps what it observed for assertions. */
@TestConfiguration(proxyBeanMethods = false)
class TestObservationRegistryConfiguration {
  @Bean
  TestObservationRegistry observationRegistry() {
    return TestObservationRegistry.create();
  }
}
