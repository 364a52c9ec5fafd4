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
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redis store with the near cache on ({@code IdempotencyConfig.Builder.nearCache}), against the
 * same hand-written baselines as {@link RedisStoreBenchmarks}: a woven replay, answered from
 * memory, against the one-round-trip replay baseline (one reading {@code EVALSHA}); and a woven
 * call with a fresh key (which the cache cannot answer, and which it then keeps) against the
 * claim-and-complete baseline. Redis is found through {@code IDEMPOTENT_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RedisNearCacheBenchmarks {
  /**
   * Room for every replay key, and for the fresh keys of a few seconds, which push the oldest out.
   */
  static final int NEAR_CACHE_SIZE = 10_000;

  private RedissonClient redisson;
  private RedissonIdempotencyStore store;
  private OrderService service;
  private RedisBaseline freshBaseline;
  private RedisBaseline retainedBaseline;
  private String[] replayKeys;

  @Setup(Level.Trial)
  public void setUp() {
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
        IdempotencyConfig.builder().defaultStore(store).nearCache(NEAR_CACHE_SIZE).build());
    service = new OrderService();
    WeavingCheck.requireReplay(
        "OrderService.submit", service::submit, "weaving-check-" + System.nanoTime());
    freshBaseline = new RedisBaseline(redisson, LEASE, FRESH_TTL);
    retainedBaseline = new RedisBaseline(redisson, LEASE, RETAINED_TTL);
    replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);
    for (int i = 0; i < replayKeys.length; i++) {
      service.submitRetained(replayKeys[i], AMOUNT);
      retainedBaseline.submit(replayKeys[i], "setup-" + i, AMOUNT);
    }
    WeavingCheck.requireRecorded(
        "OrderService.submitRetained", service::submitRetained, replayKeys[0], AMOUNT);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Idempotency.reset();
    store.close();
    redisson.shutdown();
  }

  /**
   * Fresh key, ours with the near cache: claim and completion in Redis, the outcome then kept in
   * memory.
   */
  @Benchmark
  public Receipt freshKeyNearCache(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT);
  }

  /** Fresh key, baseline: claim {@code EVALSHA}, body, encode, completion {@code EVALSHA}. */
  @Benchmark
  public Receipt freshKeyBaseline(KeyStreams.FreshKeys keys) {
    return freshBaseline.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours with the near cache: a woven call of a completed key, answered from memory. */
  @Benchmark
  public Receipt replayNearCache(KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(replayKeys), AMOUNT);
  }

  /** Replay, baseline: one reading {@code EVALSHA} and the same decoding. */
  @Benchmark
  public Receipt replayBaseline(KeyStreams.ReplayCursor cursor) {
    return retainedBaseline.replay(cursor.next(replayKeys));
  }
}
