package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.micrometer.ObservationIdempotencyObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of observing calls: a programmatic call with a fresh key on the memory store, and a
 * replay, with no observer ({@code none}), with the observer on a registry without handlers ({@code
 * noop-registry}) and on a registry with a handler that sees every observation ({@code recording}),
 * beside the plain method call ({@link #plainCall}), in one run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ObservationOverhead {
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("orders.observed").resultType(Receipt.class).build();

  @Param({"none", "noop-registry", "recording"})
  public String observer;

  private CaffeineIdempotencyStore store;
  private Idempotency idempotency;

  /** What the recording handler saw, so that its work is not optimised away. */
  private final LongAdder seen = new LongAdder();

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    store = CaffeineIdempotencyStore.builder().maximumSize(100_000).build();
    IdempotencyConfig.Builder config = IdempotencyConfig.builder().defaultStore(store);
    switch (observer) {
      case "noop-registry" ->
          config.observer(ObservationIdempotencyObserver.of(ObservationRegistry.create()));
      case "recording" -> {
        ObservationRegistry registry = ObservationRegistry.create();
        registry
            .observationConfig()
            .observationHandler(
                new ObservationHandler<>() {
                  @Override
                  public void onStop(Observation.Context context) {
                    seen.add(context.getLowCardinalityKeyValues().stream().count());
                  }

                  @Override
                  public boolean supportsContext(Observation.Context context) {
                    return true;
                  }
                });
        config.observer(ObservationIdempotencyObserver.of(registry));
      }
      default -> {}
    }
    idempotency = Idempotency.create(config.build());
    idempotency.execute(POLICY, "replayed", () -> Receipt.issue("replayed", AMOUNT));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    store.close();
  }

  /** The method alone. */
  @Benchmark
  public Receipt plainCall(KeyStreams.FreshKeys keys) {
    return Receipt.issue(keys.next(), AMOUNT);
  }

  /** A call with a key never seen before: claim, body, encode, complete. */
  @Benchmark
  public Receipt freshKey(KeyStreams.FreshKeys keys) throws Exception {
    String key = keys.next();
    return idempotency.execute(POLICY, key, () -> Receipt.issue(key, AMOUNT));
  }

  /** A repeat: claim answered with the recorded outcome, decode. */
  @Benchmark
  public Receipt replay() throws Exception {
    return idempotency.execute(POLICY, "replayed", () -> Receipt.issue("replayed", AMOUNT));
  }
}
