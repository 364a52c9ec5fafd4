package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;

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

/**
 * The Redis store with the near cache on ({@code IdempotencyConfig.Builder.nearCache}), against the
 * lean floor of {@link RedisStoreBenchmarks}: a woven replay, answered from memory, against the
 * one-round-trip replay of the floor (one reading {@code EVALSHA}); and a woven call with a fresh
 * key (which the cache cannot answer, and which it then keeps) against the floor's claim and
 * completion. Redis is found through {@code IDEMPOTENT_REDIS_URL} (default {@code
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

  private RedisBenchFixture redis;

  @Setup(Level.Trial)
  public void setUp() {
    redis = new RedisBenchFixture(NEAR_CACHE_SIZE);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    redis.close();
  }

  /**
   * Fresh key, ours with the near cache: claim and completion in Redis, the outcome then kept in
   * memory.
   */
  @Benchmark
  public Receipt freshKeyNearCache(KeyStreams.FreshKeys keys) {
    return redis.service.submit(keys.next(), AMOUNT);
  }

  /** Fresh key, the lean floor: claim {@code EVALSHA}, body, completion {@code EVALSHA}. */
  @Benchmark
  public Receipt freshKeyFloor(KeyStreams.FreshKeys keys) {
    return redis.freshFloor.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours with the near cache: a woven call of a completed key, answered from memory. */
  @Benchmark
  public Receipt replayNearCache(KeyStreams.ReplayCursor cursor) {
    return redis.service.submitRetained(cursor.next(redis.replayKeys), AMOUNT);
  }

  /** Replay, the lean floor: one reading {@code EVALSHA}. */
  @Benchmark
  public Receipt replayFloor(KeyStreams.ReplayCursor cursor) {
    return redis.retainedFloor.replay(cursor.next(redis.replayKeys), AMOUNT);
  }
}
