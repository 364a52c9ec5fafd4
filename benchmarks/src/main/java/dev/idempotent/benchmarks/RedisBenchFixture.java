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
 * What the Redis benchmarks share: one client for ours and the floors, the store installed (with or
 * without a near cache), the weaving checked, and the replay keys recorded on every side.
 */
final class RedisBenchFixture implements AutoCloseable {
  final RedissonClient redisson;
  final RedissonIdempotencyStore store;
  final OrderService service = new OrderService();

  /** The lean floor, for fresh keys and for replays. */
  final RedisFloor freshFloor;

  final RedisFloor retainedFloor;

  /** The floor that does the woven call's client work, for fresh keys and for replays. */
  final RedisFloor freshFloorWithClientWork;

  final RedisFloor retainedFloorWithClientWork;

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
    String checkedKey = "weaving-check-checked-" + System.nanoTime();
    service.submitChecked(checkedKey, AMOUNT);
    WeavingCheck.requirePayloadChecked(
        "OrderService.submitChecked", service::submitChecked, checkedKey, AMOUNT);
    freshFloor = new RedisFloor(redisson, LEASE, FRESH_TTL, false);
    retainedFloor = new RedisFloor(redisson, LEASE, RETAINED_TTL, false);
    freshFloorWithClientWork = new RedisFloor(redisson, LEASE, FRESH_TTL, true);
    retainedFloorWithClientWork = new RedisFloor(redisson, LEASE, RETAINED_TTL, true);
    for (int i = 0; i < replayKeys.length; i++) {
      service.submitRetained(replayKeys[i], AMOUNT);
      service.submitRetainedChecked(replayKeys[i], AMOUNT);
      retainedFloor.submit(replayKeys[i], "setup-" + i, AMOUNT);
      retainedFloorWithClientWork.submit(replayKeys[i], "setup-" + i, AMOUNT);
    }
    WeavingCheck.requireRecorded(
        "OrderService.submitRetained", service::submitRetained, replayKeys[0], AMOUNT);
    WeavingCheck.requirePayloadChecked(
        "OrderService.submitRetainedChecked",
        service::submitRetainedChecked,
        replayKeys[0],
        AMOUNT);
  }

  @Override
  public void close() {
    Idempotency.reset();
    store.close();
    redisson.shutdown();
  }
}
