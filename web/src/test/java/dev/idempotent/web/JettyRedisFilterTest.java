package dev.idempotent.web;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import jakarta.servlet.Filter;
import java.util.List;
import java.util.UUID;
import org.redisson.Redisson;
import org.redisson.config.Config;

/**
 * The filter's rules on the Redis store ({@code IDEMPOTENT_REDIS_URL}), under a key prefix of its
 * own. On Jetty only: the container's part is proved by the memory-store tests on both containers,
 * the store's part here.
 */
class JettyRedisFilterTest extends ServletConformance {
  @Override
  TestServer start(List<Filter> filters, TestApp app) throws Exception {
    return TestServer.jetty(filters, app);
  }

  @Override
  protected IdempotencyStore store() {
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress(
            TestServices.require(TestServices.REDIS_VARIABLE, "redis://127.0.0.1:6379", 6379))
        .setConnectionMinimumIdleSize(2)
        .setConnectionPoolSize(70);
    return RedissonIdempotencyStore.builder(Redisson.create(config))
        .keyPrefix("idem-web-test:" + UUID.randomUUID() + ":")
        .shutdownClientOnClose(true)
        .build();
  }
}
