package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.FRESH_TTL;
import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REDIS_URL_VARIABLE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;
import static dev.idempotent.benchmarks.BenchmarkSettings.RETAINED_TTL;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What the Redis benchmarks share: one client for ours and the baselines, the store installed (with
 * or without a near cache), the weaving checked, and the replay keys recorded on both sides.
 */
final class RedisBenchFixture implements AutoCloseable {
  final RedissonClient redisson;
  final RedissonIdempotencyStore store;
  final OrderService service = new OrderService();
  final RedisBaseline freshBaseline;
  final RedisBaseline retainedBaseline;
  final String[] replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);

  /**
   * @param nearCacheSize the near cache's maximum size, 0 for none
   */
  RedisBenchFixture(int nearCacheSize) {
    Config config = new Config();
    config.useSingleServer().setAddress(BenchmarkSettings.address(REDIS_URL_VARIABLE));
    try {
      redisson = Redisson.create(config);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot reach Redis; set " + REDIS_URL_VARIABLE + ": " + e, e);
    }
    store = RedissonIdempotencyStore.builder(redisson).keyPrefix("bench:idem:").build();
    Idempotency.install(
        IdempotencyConfig.builder().defaultStore(store).nearCache(nearCacheSize).build());
    WeavingCheck.requireReplay(
        "OrderService.submit", service::submit, "weaving-check-" + System.nanoTime());
    freshBaseline = new RedisBaseline(redisson, LEASE, FRESH_TTL);
    retainedBaseline = new RedisBaseline(redisson, LEASE, RETAINED_TTL);
    for (int i = 0; i < replayKeys.length; i++) {
      service.submitRetained(replayKeys[i], AMOUNT);
      retainedBaseline.submit(replayKeys[i], "setup-" + i, AMOUNT);
    }
    WeavingCheck.requireRecorded(
        "OrderService.submitRetained", service::submitRetained, replayKeys[0], AMOUNT);
  }

  @Override
  public void close() {
    Idempotency.reset();
    store.close();
    redisson.shutdown();
  }
}
