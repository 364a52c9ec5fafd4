package dev.idempotent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.OnInProgress;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Calls with a recognisable key, through every way a call ends that logs or observes something,
 * with meters, spans (the key's digest switched on) and log lines recorded: the key's text is in
 * none of them.
 */
class NoKeyTextTest {
  private static final String KEY = "KEYTEXT-customer-4711-order-0815";

  @Test
  void theKeysTextReachesNoMetricSpanOrLogLine() throws Exception {
    AtomicLong now = new AtomicLong();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (OtelTracing tracing = new OtelTracing();
        LogLines logs = new LogLines()) {
      Idempotency idempotency =
          Idempotency.create(
              IdempotencyConfig.builder()
                  .defaultStore(CaffeineIdempotencyStore.builder().timeSource(now::get).build())
                  .timeSource(now::get)
                  .listener(MicrometerIdempotencyListener.of(meters))
                  .observer(
                      ObservationIdempotencyObserver.builder(tracing.registry)
                          .keyDigest(true)
                          .build())
                  .build());
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder("orders.submit")
              .resultType(String.class)
              .onInProgress(OnInProgress.REJECT)
              .build();

      Observation.createNotStarted("caller", tracing.registry)
          .observe(
              () -> {
                try {
                  calls(idempotency, policy, now);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });

      List<String> meterTexts =
          meters.getMeters().stream().map(Meter::getId).map(Object::toString).toList();
      List<SpanData> spans = tracing.exporter.getFinishedSpanItems();
      List<String> spanTexts =
          spans.stream()
              .map(s -> s.getName() + " " + s.getAttributes() + " " + s.getEvents() + s.getStatus())
              .toList();
      List<String> logTexts = logs.texts();

      assertThat(meterTexts).isNotEmpty().noneMatch(t -> t.contains(KEY));
      assertThat(spanTexts).hasSizeGreaterThan(10).noneMatch(t -> t.contains(KEY));
      assertThat(spanTexts).anyMatch(t -> t.contains("key.digest"));
      assertThat(logTexts).hasSizeGreaterThanOrEqualTo(2).noneMatch(t -> t.contains(KEY));
    }
  }

  private static void calls(Idempotency idempotency, IdempotencyPolicy policy, AtomicLong now)
      throws Exception {
    idempotency.execute(policy, KEY, "payload", () -> "receipt");
    idempotency.execute(policy, KEY, "payload", () -> "receipt");
    assertThatThrownBy(() -> idempotency.execute(policy, KEY, "other payload", () -> "x"))
        .isInstanceOf(IdempotencyKeyMismatchException.class);

    String held = KEY + "-held";
    IdempotencyClaim first =
        idempotency.claim(policy, held).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThatThrownBy(() -> idempotency.execute(policy, held, () -> "x"))
        .isInstanceOf(IdempotencyInProgressException.class);
    now.addAndGet(IdempotencyConfig.DEFAULT_LEASE.plusSeconds(1).toNanos());
    idempotency.execute(policy, held, () -> "taken over"); // logs "took over"
    first.complete("late").toCompletableFuture().get(5, TimeUnit.SECONDS); // fenced: logs a WARN

    IdempotencyPolicy blocking =
        IdempotencyPolicy.builder("orders.blocking")
            .resultType(String.class)
            .onAmbiguousFailure(OnAmbiguousFailure.BLOCK)
            .build();
    assertThatThrownBy(
            () ->
                idempotency.execute(
                    blocking,
                    KEY,
                    () -> {
                      throw new IllegalStateException("unknown outcome");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> idempotency.execute(blocking, KEY, () -> "x"))
        .isInstanceOf(IdempotencyBlockedException.class);
  }
}
