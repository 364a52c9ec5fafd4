package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyEvent;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.Idempotent;
import dev.idempotent.OnCancel;
import dev.idempotent.OnInProgress;
import dev.idempotent.RealClockStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The Reactor operators a caller puts around a woven {@code Mono} or {@code Flux}: {@code
 * timeout()} downstream (a cancellation, settled by {@code onCancel}) and upstream (inside the
 * body: a failure), {@code retry()} (each resubscription is one attempt: after a released failure
 * it runs again, after a recorded outcome it replays) and {@code repeat()} (replays). The rows of
 * the mode table in docs/reactive.md.
 */
class ReactorModesTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final RealClockStore store = new RealClockStore();
  private final Calls calls = new Calls();

  @BeforeEach
  void install() {
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  /** A failure the methods record. */
  public static final class DeclinedException extends RuntimeException {
    public DeclinedException(String message) {
      super(message);
    }
  }

  static final class Calls {
    final AtomicInteger runs = new AtomicInteger();

    @Idempotent(key = "#id", lease = "30s")
    Mono<String> neverKept(String id) {
      runs.incrementAndGet();
      return Mono.never();
    }

    @Idempotent(
        key = "#id",
        onCancel = OnCancel.RELEASE,
        onInProgress = OnInProgress.WAIT,
        waitTimeout = "10s")
    Mono<String> neverReleased(String id) {
      return Mono.defer(() -> runs.incrementAndGet() == 1 ? Mono.never() : Mono.just("second run"));
    }

    @Idempotent(key = "#id", lease = "30s", onInProgress = OnInProgress.WAIT, waitTimeout = "200ms")
    Mono<String> neverWaited(String id) {
      runs.incrementAndGet();
      return Mono.never();
    }

    @Idempotent(key = "#id")
    Mono<String> timesOutInside(String id) {
      return Mono.defer(
          () ->
              runs.incrementAndGet() == 1
                  ? Mono.<String>never().timeout(Duration.ofMillis(20))
                  : Mono.just("second run"));
    }

    @Idempotent(key = "#id")
    Mono<String> failsOnce(String id) {
      return Mono.defer(
          () ->
              runs.incrementAndGet() == 1
                  ? Mono.error(new IllegalStateException("try again"))
                  : Mono.just("run " + runs.get()));
    }

    @Idempotent(key = "#id", recordFailures = DeclinedException.class)
    Mono<String> declined(String id) {
      return Mono.defer(
          () -> Mono.error(new DeclinedException("declined #" + runs.incrementAndGet())));
    }

    @Idempotent(key = "#id")
    Mono<String> pay(String id) {
      return Mono.fromSupplier(() -> "paid #" + runs.incrementAndGet());
    }

    @Idempotent(key = "#id")
    Flux<Integer> items(String id) {
      return Flux.defer(
          () -> {
            runs.incrementAndGet();
            return Flux.range(1, 2);
          });
    }
  }

  private <T> T call(String name, Object... args) throws Throwable {
    return PlannedCalls.call(calls, name, args);
  }

  @Test
  @Timeout(60)
  void aDownstreamTimeoutCancelsAndKeepKeepsTheKeyInProgress() throws Throwable {
    StepVerifier.create(this.<Mono<String>>call("neverKept", "t-1").timeout(Duration.ofMillis(50)))
        .expectError(TimeoutException.class)
        .verify(TIMEOUT);
    // timeout() then retry(): the retry gets the in-progress answer, never a second run
    StepVerifier.create(
            this.<Mono<String>>call("neverKept", "t-1").timeout(Duration.ofSeconds(2)).retry(1))
        .expectError(IdempotencyInProgressException.class)
        .verify(TIMEOUT);
    assertThat(calls.runs).hasValue(1);
  }

  @Test
  @Timeout(60)
  void aDownstreamTimeoutWithReleaseFreesTheKeyForTheRetry() throws Throwable {
    Mono<String> mono = call("neverReleased", "t-2");
    StepVerifier.create(mono.timeout(Duration.ofMillis(50)))
        .expectError(TimeoutException.class)
        .verify(TIMEOUT);
    // the next attempt (waiting, should the release not have landed yet) runs again
    StepVerifier.create(mono).expectNext("second run").expectComplete().verify(TIMEOUT);
    assertThat(calls.runs).hasValue(2);
  }

  @Test
  @Timeout(60)
  void aTimeoutWhileWaitingForTheKeyLeavesNoErrorToDrop() throws Throwable {
    List<Throwable> dropped = new CopyOnWriteArrayList<>();
    CountDownLatch waitEnded = new CountDownLatch(1);
    Hooks.onErrorDropped(dropped::add);
    try {
      Idempotency.install(
          IdempotencyConfig.builder()
              .defaultStore(store)
              .listener(
                  event -> {
                    if (event.type() == IdempotencyEvent.Type.IN_PROGRESS) {
                      waitEnded.countDown();
                    }
                  })
              .build());
      Mono<String> held = call("neverWaited", "w-1");
      reactor.core.Disposable holder = held.subscribe();
      while (calls.runs.get() == 0) {
        Thread.sleep(1);
      }
      // the second attempt waits for the key; its subscriber gives up first
      StepVerifier.create(
              this.<Mono<String>>call("neverWaited", "w-1").timeout(Duration.ofMillis(20)))
          .expectError(TimeoutException.class)
          .verify(TIMEOUT);
      assertThat(waitEnded.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(100); // the refusal reaches the cancelled subscription just after the event
      assertThat(dropped).as("a refusal nobody waits for any more is not an error").isEmpty();
      holder.dispose();
    } finally {
      Hooks.resetOnErrorDropped();
    }
  }

  @Test
  @Timeout(60)
  void anUpstreamTimeoutIsAFailureAndReleasesTheKey() throws Throwable {
    StepVerifier.create(this.<Mono<String>>call("timesOutInside", "t-3"))
        .expectError(TimeoutException.class)
        .verify(TIMEOUT);
    StepVerifier.create(this.<Mono<String>>call("timesOutInside", "t-3"))
        .expectNext("second run")
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(calls.runs).hasValue(2);
  }

  @Test
  @Timeout(60)
  void retryAfterAReleasedFailureRunsAgainThenReplays() throws Throwable {
    Mono<String> mono = call("failsOnce", "r-1");
    StepVerifier.create(mono.retry(3)).expectNext("run 2").expectComplete().verify(TIMEOUT);
    StepVerifier.create(mono.retry(3)).expectNext("run 2").expectComplete().verify(TIMEOUT);
    assertThat(calls.runs).hasValue(2);
  }

  @Test
  @Timeout(60)
  void retryAfterARecordedFailureReplaysIt() throws Throwable {
    Mono<String> mono = call("declined", "r-2");
    StepVerifier.create(mono.retry(3))
        .expectErrorSatisfies(
            e -> assertThat(e).isInstanceOf(DeclinedException.class).hasMessage("declined #1"))
        .verify(TIMEOUT);
    assertThat(calls.runs).hasValue(1);
  }

  @Test
  @Timeout(60)
  void repeatReplaysTheRecordedOutcome() throws Throwable {
    StepVerifier.create(this.<Mono<String>>call("pay", "p-1").repeat(2))
        .expectNext("paid #1", "paid #1", "paid #1")
        .expectComplete()
        .verify(TIMEOUT);
    StepVerifier.create(this.<Flux<Integer>>call("items", "i-1").repeat(1))
        .expectNext(1, 2, 1, 2)
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(calls.runs).hasValue(2);
  }
}
