package dev.idempotent.web;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Where the store-backed tests find their services: {@code IDEMPOTENT_REDIS_URL} and {@code
 * IDEMPOTENT_POSTGRES_URL}. When one is not set the test fails on CI ({@code CI=true}) and is skipped elsewhere,
 * naming the variable.
 */
final class TestServices {
  static final String REDIS_VARIABLE = "IDEMPOTENT_REDIS_URL";
  static final String POSTGRES_VARIABLE = "IDEMPOTENT_POSTGRES_URL";

  private TestServices() {}

  static String require(String variable, String example) {
    String url = System.getenv(variable);
    if (url != null && !url.isBlank()) {
      return url.trim();
    }
    String why = variable + " is not set; set it, for example " + variable + "=" + example;
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(why + " (CI=true: store tests must not be skipped)");
    }
    assumeTrue(false, "skipped: " + why);
    throw new AssertionError("unreachable");
  }
}
