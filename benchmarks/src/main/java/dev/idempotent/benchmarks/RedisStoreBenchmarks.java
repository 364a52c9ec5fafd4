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
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
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

  /** Target 4, ours: a woven call with a key never seen before. */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT);
  }

  /** Target 4, baseline: claim {@code EVALSHA}, body, encode, completion {@code EVALSHA}. */
  @Benchmark
  public Receipt freshKeyBaseline(KeyStreams.FreshKeys keys) {
    return freshBaseline.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours: a woven call of a completed key. */
  @Benchmark
  public Receipt replayWoven(KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(replayKeys), AMOUNT);
  }

  /** Replay, baseline: one reading {@code EVALSHA} and the same decoding. */
  @Benchmark
  public Receipt replayBaseline(KeyStreams.ReplayCursor cursor) {
    return retainedBaseline.replay(cursor.next(replayKeys));
  }
}
