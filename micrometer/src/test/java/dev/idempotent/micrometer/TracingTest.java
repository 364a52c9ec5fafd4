package dev.idempotent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyClaim;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.OnInProgress;
import dev.idempotent.StoreFailurePolicy;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.spi.IdempotencyStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * With Micrometer Tracing's OpenTelemetry bridge: a call's span is a child of its caller's, the
 * method's own spans and the store round trips are children of the call's, on the blocking and the
 * deferred path; and while the call runs, log lines carry its trace id (MDC).
 */
class TracingTest {
  private final OtelTracing tracing = new OtelTracing();
  private final InMemorySpanExporter exporter = tracing.exporter;
  private final ObservationRegistry registry = tracing.registry;
  private final Idempotency idempotency;

  TracingTest() {
    idempotency =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(CaffeineIdempotencyStore.builder().build())
                .observer(ObservationIdempotencyObserver.of(registry))
                .build());
  }

  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  @AfterEach
  void close() {
    pool.shutdownNow();
    tracing.close();
  }

  private SpanData span(String name) {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + names()));
  }

  private List<String> names() {
    return exporter.getFinishedSpanItems().stream().map(SpanData::getName).toList();
  }

  @Test
  void aBlockingCallIsAChildOfItsCallerAndTheParentOfTheMethodsSpans() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.submit").resultType(String.class).build();
    AtomicReference<String> traceIdInMethod = new AtomicReference<>();
    AtomicReference<String> spanIdInMethod = new AtomicReference<>();
    Observation caller = Observation.createNotStarted("caller", registry);
    caller.observe(
        () -> {
          try {
            idempotency.execute(
                policy,
                "k",
                () -> {
                  traceIdInMethod.set(MDC.get("traceId"));
                  spanIdInMethod.set(MDC.get("spanId"));
                  return Observation.createNotStarted("work", registry).observe(() -> "receipt");
                });
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });

    SpanData callerSpan = span("caller");
    SpanData call = span("idempotent orders.submit");
    SpanData work = span("work");
    assertThat(call.getParentSpanId()).isEqualTo(callerSpan.getSpanId());
    assertThat(work.getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(span("idempotent claim").getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(span("idempotent complete").getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(call.getAttributes().asMap().toString()).contains("outcome=executed");
    // what the method logs carries the trace, with the call's span
    assertThat(traceIdInMethod.get()).isEqualTo(callerSpan.getTraceId());
    assertThat(spanIdInMethod.get()).isEqualTo(call.getSpanId());
  }

  @Test
  void aDeferredCallIsTracedAcrossTheThreadThatCompletesIt() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.async").resultType(String.class).build();
    CompletableFuture<String> done = new CompletableFuture<>();
    Observation caller = Observation.createNotStarted("caller", registry);
    caller.observe(
        () -> {
          idempotency
              .executeDeferred(
                  policy,
                  "k",
                  null,
                  () ->
                      // the work goes on on another thread, with the context current where it
                      // started (inside the call), as an application's traced executor does
                      CompletableFuture.supplyAsync(
                          () ->
                              Observation.createNotStarted("work", registry)
                                  .observe(() -> "receipt"),
                          tracing.tracer.currentTraceContext().wrap(pool)))
              .whenComplete((v, e) -> done.complete(v));
          Observation.createNotStarted("caller-after", registry).observe(() -> {});
        });
    assertThat(done.get(5, TimeUnit.SECONDS)).isEqualTo("receipt");

    SpanData callerSpan = span("caller");
    SpanData call = span("idempotent orders.async");
    assertThat(call.getParentSpanId()).isEqualTo(callerSpan.getSpanId());
    assertThat(call.getTraceId()).isEqualTo(callerSpan.getTraceId());
    assertThat(span("idempotent complete").getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(span("work").getParentSpanId()).isEqualTo(call.getSpanId());
    // the caller's later work is not inside the call
    assertThat(span("caller-after").getParentSpanId()).isEqualTo(callerSpan.getSpanId());
  }

  /** A store whose claims fail (the rest goes to a working one). */
  private static IdempotencyStore claimsFail() {
    IdempotencyStore working = CaffeineIdempotencyStore.builder().build();
    return (IdempotencyStore)
        Proxy.newProxyInstance(
            IdempotencyStore.class.getClassLoader(),
            new Class<?>[] {IdempotencyStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("claim")) {
                throw new IllegalStateException("store down");
              }
              try {
                return method.invoke(working, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void aFailOpenCallsSpanCoversTheUnprotectedMethod() throws Exception {
    Idempotency failOpen =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(claimsFail())
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .observer(ObservationIdempotencyObserver.of(registry))
                .build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.open").resultType(String.class).build();
    Observation.createNotStarted("caller", registry)
        .observe(
            () -> {
              try {
                failOpen.execute(
                    policy,
                    "k",
                    () -> Observation.createNotStarted("work", registry).observe(() -> "receipt"));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });

    SpanData call = span("idempotent orders.open");
    SpanData work = span("work");
    assertThat(call.getParentSpanId()).isEqualTo(span("caller").getSpanId());
    assertThat(work.getParentSpanId()).isEqualTo(call.getSpanId());
    // the call's span lasts as long as the method it ran
    assertThat(call.getEndEpochNanos()).isGreaterThanOrEqualTo(work.getEndEpochNanos());
    assertThat(call.getAttributes().asMap().toString()).contains("outcome=store_failure_open");
  }

  @Test
  void eachWaitForAKeyInProgressIsAChildSpanOfTheCall() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.waiting")
            .resultType(String.class)
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofMillis(50))
            .build();
    IdempotencyClaim held =
        idempotency.claim(policy, "k").toCompletableFuture().get(5, TimeUnit.SECONDS);
    Observation.createNotStarted("caller", registry)
        .observe(
            () ->
                assertThatThrownBy(() -> idempotency.execute(policy, "k", () -> "receipt"))
                    .isInstanceOf(IdempotencyInProgressException.class));
    held.release().toCompletableFuture().get(5, TimeUnit.SECONDS);

    SpanData call =
        exporter.getFinishedSpanItems().stream()
            .filter(s -> s.getName().equals("idempotent orders.waiting"))
            .filter(s -> s.getParentSpanId().equals(span("caller").getSpanId()))
            .findFirst()
            .orElseThrow();
    List<SpanData> waits =
        exporter.getFinishedSpanItems().stream()
            .filter(s -> s.getName().equals("idempotent wait"))
            .toList();
    assertThat(waits).isNotEmpty();
    assertThat(waits).allSatisfy(w -> assertThat(w.getParentSpanId()).isEqualTo(call.getSpanId()));
    assertThat(call.getAttributes().asMap().toString()).contains("outcome=in_progress");
  }

  @Test
  void theLibrarysLogLinesCarryTheTraceOfTheCall() throws Exception {
    AtomicLong now = new AtomicLong();
    Idempotency onFakeClock =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(CaffeineIdempotencyStore.builder().timeSource(now::get).build())
                .timeSource(now::get)
                .observer(ObservationIdempotencyObserver.of(registry))
                .build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("orders.logged").resultType(String.class).build();
    IdempotencyClaim abandoned =
        onFakeClock.claim(policy, "k").toCompletableFuture().get(5, TimeUnit.SECONDS);
    now.addAndGet(IdempotencyConfig.DEFAULT_LEASE.plusSeconds(1).toNanos());

    try (LogLines logs = new LogLines()) {
      Observation.createNotStarted("caller", registry)
          .observe(
              () -> {
                try {
                  onFakeClock.execute(policy, "k", () -> "receipt");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      ILoggingEvent tookOver =
          logs.lines().stream()
              .filter(e -> e.getFormattedMessage().startsWith("took over"))
              .findFirst()
              .orElseThrow();
      assertThat(tookOver.getMDCPropertyMap())
          .containsEntry("traceId", span("caller").getTraceId());
    }
    abandoned.release().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }
}
