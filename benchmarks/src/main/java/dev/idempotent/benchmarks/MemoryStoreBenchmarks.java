package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.FRESH_TTL;
import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;
import static dev.idempotent.benchmarks.BenchmarkSettings.RETAINED_TTL;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.memory.CaffeineIdempotencyStore;
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
 * Targets 1 and 2: a woven call on the memory store against a hand-written Caffeine claim/complete
 * pair (fresh keys), and a woven replay against a hand-written {@code getIfPresent} and decoding.
 * Both caches hold at most {@value #MAXIMUM_SIZE} records, so memory stays flat however many fresh
 * keys a run makes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class MemoryStoreBenchmarks {
  static final long MAXIMUM_SIZE = 100_000;

  private CaffeineIdempotencyStore store;
  private OrderService service;
  private CaffeineBaseline freshBaseline;
  private CaffeineBaseline retainedBaseline;
  private String[] replayKeys;

  @Setup(Level.Trial)
  public void setUp() {
    store = CaffeineIdempotencyStore.builder().maximumSize(MAXIMUM_SIZE).build();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
    service = new OrderService();
    WeavingCheck.requireReplay("OrderService.submit", service::submit, "weaving-check");
    freshBaseline = new CaffeineBaseline(MAXIMUM_SIZE, LEASE, FRESH_TTL);
    retainedBaseline = new CaffeineBaseline(MAXIMUM_SIZE, LEASE, RETAINED_TTL);
    replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);
    for (String key : replayKeys) {
      service.submitRetained(key, AMOUNT);
      retainedBaseline.submit(key, AMOUNT);
    }
    WeavingCheck.requireRecorded(
        "OrderService.submitRetained", service::submitRetained, replayKeys[0], AMOUNT);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    Idempotency.reset();
    store.close();
  }

  /** Target 1, ours: a woven call with a key never seen before (claim, body, encode, complete). */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT);
  }

  /** Target 1, baseline: {@code putIfAbsent} an in-progress marker, body, encode, {@code put}. */
  @Benchmark
  public Receipt freshKeyBaseline(KeyStreams.FreshKeys keys) {
    return freshBaseline.submit(keys.next(), AMOUNT);
  }

  /**
   * Target 2, ours: a woven call of a key that already completed (claim answers the record,
   * decode).
   */
  @Benchmark
  public Receipt replayWoven(KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(replayKeys), AMOUNT);
  }

  /** Target 2, baseline: {@code getIfPresent} and the same decoding. */
  @Benchmark
  public Receipt replayBaseline(KeyStreams.ReplayCursor cursor) {
    return retainedBaseline.replay(cursor.next(replayKeys));
  }
}
