package dev.idempotent.webflux;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.tck.TestBackends;
import java.util.Optional;
import java.util.UUID;
import org.redisson.Redisson;
import org.redisson.config.Config;

/**
 * The web filter's rules on the Redis store ({@code IDEMPOTENT_REDIS_URL}, else the local server on
 * 6379; missing: a failure on CI, else skipped), under a key prefix of its own, on its non-blocking
 * face (Redisson's asynchronous API).
 */
class ReactorNettyRedisFilterTest extends WebFluxConformance {
  private static final String VARIABLE = "IDEMPOTENT_REDIS_URL";
  private static final String LOCAL = "redis://127.0.0.1:6379";

  @Override
  protected IdempotencyStore store() {
    Optional<String> url = TestBackends.configuredOrLocal(VARIABLE, LOCAL, 6379);
    if (url.isEmpty()) {
      TestBackends.missing(VARIABLE, LOCAL, 6379);
    }
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress(url.orElseThrow())
        .setConnectionMinimumIdleSize(2)
        .setConnectionPoolSize(70);
    return RedissonIdempotencyStore.builder(Redisson.create(config))
        .keyPrefix("idem-webflux-test:" + UUID.randomUUID() + ":")
        .shutdownClientOnClose(true)
        .build();
  }
}
