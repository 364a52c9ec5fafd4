package dev.idempotent.spring.it;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Where the tests find their services: {@code IDEMPOTENT_POSTGRES_URL} and {@code IDEMPOTENT_REDIS_URL}. When one
 * is not set the test fails on CI ({@code CI=true}) and is skipped elsewhere, naming the variable.
 */
final class TestServices {
  static final String POSTGRES_VARIABLE = "IDEMPOTENT_POSTGRES_URL";
  static final String REDIS_VARIABLE = "IDEMPOTENT_REDIS_URL";

  private TestServices() {}

  static String postgres() {
    return require(POSTGRES_VARIABLE, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  }

  static String redis() {
    return require(REDIS_VARIABLE, "redis://127.0.0.1:6379");
  }

  private static String require(String variable, String example) {
    String url = System.getenv(variable);
    if (url != null && !url.isBlank()) {
      return url.trim();
    }
    String why = variable + " is not set; set it, for example " + variable + "=" + example;
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(why + " (CI=true: these tests must not be skipped)");
    }
    assumeTrue(false, "skipped: " + why);
    throw new AssertionError("unreachable");
  }
}
