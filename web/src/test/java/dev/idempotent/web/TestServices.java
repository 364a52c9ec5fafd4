package dev.idempotent.web;

import dev.idempotent.tck.TestBackends;
import java.util.Optional;

/**
 * Where the store-backed tests find their services: {@code IDEMPOTENT_REDIS_URL} and {@code
 * IDEMPOTENT_POSTGRES_URL}, else the local server on its standard port when it answers. When
 * neither is there the test fails on CI ({@code CI=true}) and is skipped elsewhere with a {@code
 * SKIPPED} console line naming the variable (see {@link TestBackends}).
 */
final class TestServices {
  static final String REDIS_VARIABLE = "IDEMPOTENT_REDIS_URL";
  static final String POSTGRES_VARIABLE = "IDEMPOTENT_POSTGRES_URL";

  private TestServices() {}

  /**
   * The variable's URL, else {@code localUrl} when something answers on {@code
   * 127.0.0.1:localPort}.
   */
  static String require(String variable, String localUrl, int localPort) {
    Optional<String> url = TestBackends.configuredOrLocal(variable, localUrl, localPort);
    if (url.isEmpty()) {
      TestBackends.missing(variable, localUrl, localPort);
    }
    return url.orElseThrow();
  }
}
