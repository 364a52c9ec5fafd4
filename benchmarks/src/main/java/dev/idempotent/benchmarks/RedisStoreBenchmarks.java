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
 * Target 4: a woven call on the Redis store against the hand-written floor ({@link RedisFloor})
 * through the same client: fresh keys (claim, body, completion) and replays. The woven methods
 * check their payload ({@code payload = "*"}); beside the lean floor (string values, no
 * fingerprint, no codec) runs the floor that does the same client work as the woven call (the
 * payload fingerprint and the outcome encoding), so that a gap splits into that work and the rest
 * (executor, store client, scripts). Redis is found through {@code IDEMPOTENT_REDIS_URL} (default
 * {@code redis://127.0.0.1:6379}). Fresh records expire after 30 s, so Redis memory stays bounded.
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

  /** Fresh key, ours: a woven call (payload checked) with a key never seen before. */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return redis.service.submitChecked(keys.next(), AMOUNT);
  }

  /** Fresh key, the lean floor: claim {@code EVALSHA}, body, completion {@code EVALSHA}. */
  @Benchmark
  public Receipt freshKeyFloor(KeyStreams.FreshKeys keys) {
    return redis.freshFloor.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Fresh key, the floor with the woven call's client work: fingerprint and outcome encoding. */
  @Benchmark
  public Receipt freshKeyFloorWithClientWork(KeyStreams.FreshKeys keys) {
    return redis.freshFloorWithClientWork.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours: a woven call (payload checked) of a completed key. */
  @Benchmark
  public Receipt replayWoven(KeyStreams.ReplayCursor cursor) {
    return redis.service.submitRetainedChecked(cursor.next(redis.replayKeys), AMOUNT);
  }

  /** Replay, the lean floor: one reading {@code EVALSHA}. */
  @Benchmark
  public Receipt replayFloor(KeyStreams.ReplayCursor cursor) {
    return redis.retainedFloor.replay(cursor.next(redis.replayKeys), AMOUNT);
  }

  /** Replay, the lean floor: one plain {@code GET}. */
  @Benchmark
  public Receipt replayFloorGet(KeyStreams.ReplayCursor cursor) {
    return redis.retainedFloor.replayGet(cursor.next(redis.replayKeys), AMOUNT);
  }

  /** Replay, the floor with the woven call's client work: fingerprint check and decoding. */
  @Benchmark
  public Receipt replayFloorWithClientWork(KeyStreams.ReplayCursor cursor) {
    return redis.retainedFloorWithClientWork.replay(cursor.next(redis.replayKeys), AMOUNT);
  }
}
