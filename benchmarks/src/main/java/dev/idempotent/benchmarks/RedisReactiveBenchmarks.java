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
import reactor.core.publisher.Mono;

/**
 * The reactive path on Redis: a woven method returning a {@code Mono} (claim, body, completion and
 * replay on the store's non-blocking face) against the hand-written floor on Redisson's
 * asynchronous API ({@link RedisFloor#submitAsync}, {@link RedisFloor#replayAsync}): the same
 * {@code EVALSHA} claim, completion and read, through the same client, doing the same client work
 * as the woven call (the payload fingerprint of {@code payload = "*"}, the outcome encoded as the
 * default codec does). Each operation is one subscriber: it subscribes and waits for the receipt,
 * so JMH's thread count is the number of concurrent subscribers.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RedisReactiveBenchmarks {
  private RedisBenchFixture redis;
  private final ReactiveOrderService service = new ReactiveOrderService();

  @Setup(Level.Trial)
  public void setUp() {
    redis = new RedisBenchFixture(0);
    String key = "weaving-check-mono-" + System.nanoTime();
    service.submit(key, AMOUNT).block();
    WeavingCheck.requirePayloadChecked(
        "ReactiveOrderService.submit",
        (k, amount) -> service.submit(k, amount).block(),
        key,
        AMOUNT);
    for (String replayKey : redis.replayKeys) {
      service.submitRetained(replayKey, AMOUNT).block();
    }
    WeavingCheck.requirePayloadChecked(
        "ReactiveOrderService.submitRetained",
        (k, amount) -> service.submitRetained(k, amount).block(),
        redis.replayKeys[0],
        AMOUNT);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    redis.close();
  }

  /** Fresh key, ours: one subscription of a woven {@code Mono} with a key never seen before. */
  @Benchmark
  public Receipt freshKeyMono(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT).block();
  }

  /** Fresh key, the asynchronous floor: claim {@code EVALSHA}, body, completion {@code EVALSHA}. */
  @Benchmark
  public Receipt freshKeyAsyncFloor(KeyStreams.FreshKeys keys) {
    String key = keys.next();
    String owner = keys.owner();
    return Mono.fromCompletionStage(
            () -> redis.freshFloorWithClientWork.submitAsync(key, owner, AMOUNT))
        .block();
  }

  /** Replay, ours: one subscription of a woven {@code Mono} of a completed key. */
  @Benchmark
  public Receipt replayMono(KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(redis.replayKeys), AMOUNT).block();
  }

  /** Replay, the asynchronous floor: one reading {@code EVALSHA}. */
  @Benchmark
  public Receipt replayAsyncFloor(KeyStreams.ReplayCursor cursor) {
    String key = cursor.next(redis.replayKeys);
    return Mono.fromCompletionStage(
            () -> redis.retainedFloorWithClientWork.replayAsync(key, AMOUNT))
        .block();
  }
}
