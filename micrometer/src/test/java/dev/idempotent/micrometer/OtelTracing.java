package dev.idempotent.micrometer;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.EventPublishingContextWrapper;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.otel.bridge.Slf4JEventListener;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/**
 * An observation registry with Micrometer Tracing's OpenTelemetry bridge, finished spans kept in
 * memory, and the trace context in the SLF4J MDC while a span is current (as Spring Boot sets it
 * up).
 */
final class OtelTracing implements AutoCloseable {
  private static final Slf4JEventListener MDC = new Slf4JEventListener();

  static {
    // once per JVM, before the first OpenTelemetry context is made
    ContextStorage.addWrapper(new EventPublishingContextWrapper(MDC::onEvent));
  }

  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  final OtelTracer tracer =
      new OtelTracer(provider.get("test"), new OtelCurrentTraceContext(), MDC::onEvent);
  final ObservationRegistry registry = ObservationRegistry.create();

  OtelTracing() {
    registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
  }

  @Override
  public void close() {
    provider.close();
  }
}
