package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.Idempotent;
import dev.idempotent.RealClockStore;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * {@code max-bytes} holds while a {@code Flux}'s items flow: past it, the items already held are
 * let go at once (not when the {@code Flux} ends), the rest are delivered without being held, and
 * the outcome is not recorded. Measured by whether the items can be collected while the {@code
 * Flux} still runs (weak references cleared), not by heap size.
 */
class FluxBytesLimitTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int ITEM = 1024;
  private final RealClockStore store = new RealClockStore();

  @BeforeEach
  void install() {
    Idempotency.install(
        IdempotencyConfig.builder().defaultStore(store).fluxLimits(1000, 4 * ITEM).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  static final class Streams {
    final AtomicInteger runs = new AtomicInteger();
    volatile Flux<byte[]> next;

    @Idempotent(key = "#id")
    Flux<byte[]> chunks(String id) {
      runs.incrementAndGet();
      return next;
    }
  }

  private final Streams streams = new Streams();

  @Test
  @Timeout(60)
  void itemsPastMaxBytesAreLetGoWhileTheFluxRunsAndNothingIsRecorded() throws Throwable {
    Sinks.Many<byte[]> sink = Sinks.many().unicast().onBackpressureBuffer();
    streams.next = sink.asFlux();
    CountDownLatch delivered = new CountDownLatch(12);
    CountDownLatch done = new CountDownLatch(1);
    Flux<byte[]> flux = PlannedCalls.call(streams, "chunks", "c-1");
    flux.subscribe(item -> delivered.countDown(), e -> done.countDown(), done::countDown);
    List<WeakReference<byte[]>> sent = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      byte[] item = new byte[ITEM];
      sent.add(new WeakReference<>(item));
      sink.tryEmitNext(item);
    }
    assertThat(delivered.await(10, TimeUnit.SECONDS)).as("every item is delivered").isTrue();
    for (int i = 0; i < 100 && sent.stream().anyMatch(r -> r.get() != null); i++) {
      System.gc();
      Thread.sleep(5);
    }
    assertThat(sent.stream().filter(r -> r.get() != null).count())
        .as("items still held while the Flux runs")
        .isZero();

    // still running: the key stays claimed until the Flux ends (no second run alongside it)
    StepVerifier.create(PlannedCalls.<Flux<byte[]>>call(streams, "chunks", "c-1"))
        .expectError(IdempotencyInProgressException.class)
        .verify(TIMEOUT);

    sink.tryEmitComplete();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    // not recorded: the key is released and a repeat runs again
    streams.next = Flux.just(new byte[1]);
    StepVerifier.create(PlannedCalls.<Flux<byte[]>>call(streams, "chunks", "c-1"))
        .expectNextCount(1)
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(streams.runs).hasValue(2);
  }

  @Test
  @Timeout(60)
  void itemsWithinTheLimitsAreRecordedAndReplayed() throws Throwable {
    streams.next = Flux.range(0, 3).map(i -> new byte[] {i.byteValue()});
    StepVerifier.create(PlannedCalls.<Flux<byte[]>>call(streams, "chunks", "w-1"))
        .expectNextCount(3)
        .expectComplete()
        .verify(TIMEOUT);
    StepVerifier.create(PlannedCalls.<Flux<byte[]>>call(streams, "chunks", "w-1"))
        .expectNextMatches(b -> b[0] == 0)
        .expectNextMatches(b -> b[0] == 1)
        .expectNextMatches(b -> b[0] == 2)
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(streams.runs).hasValue(1);
  }
}
