package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.NATS_URL_VARIABLE;
import static dev.idempotent.benchmarks.BenchmarkSettings.REPLAY_KEYS;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.nats.NatsIdempotencyStore;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.time.Duration;
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
 * A woven call on the NATS store against the hand-written floor ({@link NatsFloor}: jnats'
 * key-value {@code create}, {@code update} and {@code get}) through the same connection: fresh keys
 * (claim, body, completion) and replays. NATS is found through {@code IDEMPOTENT_JETSTREAM_URL}
 * (default {@code nats://127.0.0.1:4222}). The buckets remove entries after their max age.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class NatsStoreBenchmarks {
  private Connection connection;
  private NatsIdempotencyStore store;
  private final OrderService service = new OrderService();
  private NatsFloor freshFloor;
  private NatsFloor retainedFloor;
  private final String[] replayKeys = KeyStreams.replayKeys(REPLAY_KEYS);

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    String url = BenchmarkSettings.address(NATS_URL_VARIABLE);
    try {
      connection =
          Nats.connect(
              new Options.Builder().server(url).connectionTimeout(Duration.ofSeconds(5)).build());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot reach NATS; set " + NATS_URL_VARIABLE + ": " + e, e);
    }
    store = NatsIdempotencyStore.builder(connection).bucket("bench-idem").build();
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
    WeavingCheck.requireReplay(
        "OrderService.submit", service::submit, "weaving-check-" + System.nanoTime());
    freshFloor = new NatsFloor(connection, "fresh.");
    retainedFloor = new NatsFloor(connection, "retained.");
    for (int i = 0; i < replayKeys.length; i++) {
      service.submitRetained(replayKeys[i], AMOUNT);
      retainedFloor.submit(replayKeys[i], "setup-" + i, AMOUNT);
    }
    WeavingCheck.requireRecorded(
        "OrderService.submitRetained", service::submitRetained, replayKeys[0], AMOUNT);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    Idempotency.reset();
    store.close();
    connection.close();
  }

  /** Fresh key, ours: a woven call with a key never seen before. */
  @Benchmark
  public Receipt freshKeyWoven(KeyStreams.FreshKeys keys) {
    return service.submit(keys.next(), AMOUNT);
  }

  /** Fresh key, the floor: {@code create}, body, {@code update} on the revision. */
  @Benchmark
  public Receipt freshKeyFloor(KeyStreams.FreshKeys keys) {
    return freshFloor.submit(keys.next(), keys.owner(), AMOUNT);
  }

  /** Replay, ours: a woven call of a completed key. */
  @Benchmark
  public Receipt replayWoven(KeyStreams.ReplayCursor cursor) {
    return service.submitRetained(cursor.next(replayKeys), AMOUNT);
  }

  /** Replay, the floor: one {@code get}. */
  @Benchmark
  public Receipt replayFloor(KeyStreams.ReplayCursor cursor) {
    return retainedFloor.replay(cursor.next(replayKeys), AMOUNT);
  }
}
