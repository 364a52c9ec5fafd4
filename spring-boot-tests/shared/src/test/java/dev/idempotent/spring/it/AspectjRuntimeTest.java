package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.aspectj.lang.JoinPoint;
import org.junit.jupiter.api.Test;

/**
 * Spring Boot's dependency management pins {@code aspectjrt} (3.5.7: 1.9.24, 4.0.7: 1.9.25.1) below
 * the weaver the library is built with; the {@code aspectj.version} property of docs/spring-boot.md
 * lifts it to match.
 */
class AspectjRuntimeTest {
  @Test
  void theRuntimeIsTheWeaversVersion() {
    String jar = JoinPoint.class.getProtectionDomain().getCodeSource().getLocation().toString();
    assertThat(jar).contains("aspectjrt-1.9.27");
  }
}
