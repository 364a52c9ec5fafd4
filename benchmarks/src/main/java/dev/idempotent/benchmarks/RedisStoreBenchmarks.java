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
 * Target 4: a woven call on the Redis store against a hand-written baseline of one claim {@code
 * EVALSHA} and one completion {@code EVALSHA} through the same client; and a woven replay against
 * one reading {@code EVALSHA}. Redis is found through {@code IDEMPOTENT_REDIS_URL} (default {@code
 * redis://127.0.0.1:6379}). Fresh records expire after 30 s, so Redis memory stays bounded.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RedisStoreBenchmarks {
  private RedisBenchFixture redis;

  @Setup(Level.Trial)
  public void setUp() {
    redis = new RedisBenchFixture(0);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    redis.close();
  }

  /** Target 4, ours: a woven call with a key never seen before. */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return redis.service.submit(keys.next(), AMOUNT);
  }

  /** Target 4, baseline: claim {@code EVALSHA}, body, encode, completion {@code EVALSHA}. */
  @Benchmark
  public Receipt freshKeyBaseline(KeyStreams.FreshKeys keys) {
    return redis.freshBaseline.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours: a woven call of a completed key. */
  @Benchmark
  public Receipt replayWoven(KeyStreams.ReplayCursor cursor) {
    return redis.service.submitRetained(cursor.next(redis.replayKeys), AMOUNT);
  }

  /** Replay, baseline: one reading {@code EVALSHA} and the same decoding. */
  @Benchmark
  public Receipt replayBaseline(KeyStreams.ReplayCursor cursor) {
    return redis.retainedBaseline.replay(cursor.next(redis.replayKeys));
  }
}
