package dev.idempotent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.reactor.IdempotentReactor;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor with automatic context propagation ({@code Hooks.enableAutomaticContextPropagation()},
 * Micrometer's context-propagation library on the class path) and Micrometer Tracing's
 * OpenTelemetry bridge: the call's span is a child of the subscriber's (the observation in the
 * subscriber's Reactor context), and the spans the work makes inside its pipeline, on whatever
 * thread, are children of the call's.
 */
class ReactorTracingTest {
  private final OtelTracing tracing = new OtelTracing();
  private final ObservationRegistry registry = tracing.registry;
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder()
              .defaultStore(CaffeineIdempotencyStore.builder().build())
              .observer(ObservationIdempotencyObserver.of(registry))
              .build());

  @BeforeAll
  static void propagate() {
    Hooks.enableAutomaticContextPropagation();
  }

  @AfterAll
  static void stopPropagating() {
    Hooks.disableAutomaticContextPropagation();
  }

  @AfterEach
  void close() {
    tracing.close();
  }

  private SpanData span(String name) {
    return tracing.exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + names()));
  }

  private List<String> names() {
    return tracing.exporter.getFinishedSpanItems().stream().map(SpanData::getName).toList();
  }

  /** An observation made where the pipeline runs: a span of the work's own. */
  private String work(String name, String value) {
    return Observation.createNotStarted(name, registry).observe(() -> value);
  }

  @Test
  void aMonosCallIsTheSubscribersChildAndTheParentOfTheWorksSpans() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.mono").resultType(String.class).build();
    Observation caller = Observation.createNotStarted("caller", registry).start();
    String result =
        IdempotentReactor.mono(
                idempotency,
                policy,
                "k",
                null,
                () ->
                    Mono.fromCallable(() -> work("work-start", "a"))
                        .delayElement(Duration.ofMillis(1))
                        .publishOn(Schedulers.boundedElastic())
                        .map(v -> work("work-later", v + "b")))
            // the subscriber's observation is in its Reactor context only, not current here
            .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, caller))
            .subscribeOn(Schedulers.parallel())
            .block(Duration.ofSeconds(5));
    caller.stop();
    assertThat(result).isEqualTo("ab");

    SpanData call = span("idempotent orders.mono");
    assertThat(call.getParentSpanId()).isEqualTo(span("caller").getSpanId());
    assertThat(span("work-start").getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(span("work-later").getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(span("idempotent complete").getParentSpanId()).isEqualTo(call.getSpanId());
  }

  @Test
  void aFluxsItemsAreMadeInsideTheCall() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.flux").resultType(String.class).build();
    Observation caller = Observation.createNotStarted("caller", registry).start();
    List<String> items =
        IdempotentReactor.flux(
                idempotency,
                policy,
                "k",
                null,
                () ->
                    Flux.just("a", "b")
                        .publishOn(Schedulers.boundedElastic())
                        .map(v -> work("item-" + v, v)))
            .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, caller))
            .collectList()
            .subscribeOn(Schedulers.parallel())
            .block(Duration.ofSeconds(5));
    caller.stop();
    assertThat(items).containsExactly("a", "b");

    SpanData call = span("idempotent orders.flux");
    assertThat(call.getParentSpanId()).isEqualTo(span("caller").getSpanId());
    assertThat(span("item-a").getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(span("item-b").getParentSpanId()).isEqualTo(call.getSpanId());
  }
}
