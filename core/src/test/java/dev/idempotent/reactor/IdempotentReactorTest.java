package dev.idempotent.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.IdempotencyKeyMismatchException;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.OnCancel;
import dev.idempotent.RealClockStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * The Reactor entry point for code that is not woven: the laziness, replay, in-progress refusal,
 * cancellation and {@code Flux} limits of a woven {@code Mono} or {@code Flux} method.
 */
@Timeout(30)
class IdempotentReactorTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final RealClockStore store = new RealClockStore();
  private final Idempotency idempotency =
      Idempotency.create(
          IdempotencyConfig.builder().defaultStore(store).fluxLimits(3, 1 << 20).build());
  private final AtomicInteger runs = new AtomicInteger();

  /** Released when a body starts, or when an attempt is refused. */
  private final Semaphore answers = new Semaphore(0);

  private static IdempotencyPolicy policy(String scope) {
    return IdempotencyPolicy.builder(scope).resultType(String.class).build();
  }

  // docs/reactive.md: code that is not woven (begin)
  private Mono<String> pay(IdempotencyPolicy policy, String key, Object payload) {
    return IdempotentReactor.mono(
        idempotency,
        policy,
        key,
        payload,
        () -> Mono.fromSupplier(() -> "paid " + key + " #" + runs.incrementAndGet()));
  }

  // docs/reactive.md: code that is not woven (end)

  @Test
  void assemblingClaimsNothingAndEachSubscriptionIsOneAttempt() {
    IdempotencyPolicy policy = policy("reactor.pay");
    AtomicInteger asked = new AtomicInteger();
    Mono<String> mono =
        IdempotentReactor.mono(
            idempotency,
            policy,
            "p-1",
            "order",
            () -> {
              asked.incrementAndGet();
              return Mono.fromSupplier(() -> "paid #" + runs.incrementAndGet());
            });
    assertThat(store.claims).hasValue(0);
    assertThat(asked).hasValue(0);

    StepVerifier.create(mono).expectNext("paid #1").expectComplete().verify(TIMEOUT);
    StepVerifier.create(mono).expectNext("paid #1").expectComplete().verify(TIMEOUT);
    StepVerifier.create(mono.retry(2)).expectNext("paid #1").expectComplete().verify(TIMEOUT);
    assertThat(store.claims).hasValue(3);
    assertThat(asked).hasValue(1);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aRepeatWithAnotherPayloadIsRefusedAsAnErrorSignal() {
    IdempotencyPolicy policy = policy("reactor.payload");
    StepVerifier.create(pay(policy, "m-1", "a")).expectNext("paid m-1 #1").verifyComplete();
    StepVerifier.create(pay(policy, "m-1", "b"))
        .expectError(IdempotencyKeyMismatchException.class)
        .verify(TIMEOUT);
    StepVerifier.create(pay(policy, " ", "a"))
        .expectError(IdempotencyKeyException.class)
        .verify(TIMEOUT);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aPolicyThatCannotBePlannedIsAnErrorSignalNotAnAssemblyFailure() {
    IdempotencyPolicy unknownStore =
        IdempotencyPolicy.builder("reactor.unknown").store("nowhere").build();
    Mono<String> mono = pay(unknownStore, "u-1", null);
    StepVerifier.create(mono).expectError(IdempotencyConfigurationException.class).verify(TIMEOUT);
    assertThat(runs).hasValue(0);
  }

  @Test
  void aKeyInProgressIsRefusedAndThenReplaysTheHoldersValue() {
    IdempotencyPolicy policy = policy("reactor.held");
    // the holder's value reaches its subscriber once the outcome is recorded; a repeat then replays
    Sinks.One<String> gate = Sinks.one();
    List<String> firstValues = new CopyOnWriteArrayList<>();
    Mono<String> held =
        IdempotentReactor.mono(
            idempotency,
            policy,
            "h-1",
            () -> {
              runs.incrementAndGet();
              answers.release();
              return gate.asMono();
            });
    CountDownLatch firstAnswered = new CountDownLatch(1);
    held.doOnNext(firstValues::add).subscribe(v -> firstAnswered.countDown());
    answers.acquireUninterruptibly(); // the first subscription holds the key and runs
    StepVerifier.create(held).expectError(IdempotencyInProgressException.class).verify(TIMEOUT);
    gate.tryEmitValue("done");
    // the holder's subscriber gets the value after the outcome is recorded, maybe on another thread
    assertThat(awaitUninterruptibly(firstAnswered)).isTrue();
    StepVerifier.create(held).expectNext("done").expectComplete().verify(TIMEOUT);
    assertThat(firstValues).containsExactly("done");
    assertThat(runs).hasValue(1);
  }

  @Test
  void anErrorIsSettledLikeAThrownExceptionAndTheKeyIsFree() {
    IdempotencyPolicy policy = policy("reactor.failing");
    Mono<String> failing =
        IdempotentReactor.mono(
            idempotency,
            policy,
            "f-1",
            () -> {
              runs.incrementAndGet();
              return Mono.error(new IllegalStateException("declined"));
            });
    StepVerifier.create(failing).expectErrorMessage("declined").verify(TIMEOUT);
    StepVerifier.create(failing).expectErrorMessage("declined").verify(TIMEOUT);
    assertThat(runs).hasValue(2);
  }

  @Test
  void aListedErrorIsRecordedAndReplayed() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("reactor.recorded")
            .recordFailures(IllegalArgumentException.class)
            .build();
    Mono<String> failing =
        IdempotentReactor.mono(
            idempotency,
            policy,
            "r-1",
            () -> {
              runs.incrementAndGet();
              return Mono.error(new IllegalArgumentException("no such account"));
            });
    StepVerifier.create(failing).expectErrorMessage("no such account").verify(TIMEOUT);
    StepVerifier.create(failing)
        .expectErrorSatisfies(
            e -> {
              assertThat(e).isInstanceOf(IllegalArgumentException.class);
              assertThat(e.getMessage()).contains("no such account");
            })
        .verify(TIMEOUT);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aNullPublisherIsTheBodysMistakeNamedInTheErrorSignal() {
    Mono<String> mono =
        IdempotentReactor.mono(idempotency, policy("reactor.null"), "n-1", () -> null);
    StepVerifier.create(mono)
        .expectErrorSatisfies(
            e ->
                assertThat(e)
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("IdempotentReactor.mono for scope reactor.null"))
        .verify(TIMEOUT);
  }

  @Test
  void aCancelledSubscriptionKeepsTheClaimByDefault() {
    IdempotencyPolicy policy = policy("reactor.keep");
    assertThat(policy.settings().onCancel()).isEqualTo(OnCancel.KEEP);
    Mono<String> never = never(policy, "c-1");
    Disposable running = never.subscribe();
    answers.acquireUninterruptibly(); // the body runs
    running.dispose();
    StepVerifier.create(never).expectError(IdempotencyInProgressException.class).verify(TIMEOUT);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aCancelledSubscriptionReleasesTheClaimWhenThePolicySaysSo() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("reactor.release").onCancel(OnCancel.RELEASE).build();
    Mono<String> never = never(policy, "c-2");
    Disposable running = never.subscribe();
    answers.acquireUninterruptibly(); // the body runs
    running.dispose();
    // the release is written after the cancel returns: a repeat is refused until it lands, then
    // runs (the test's timeout bounds the wait; with the claim kept, it would never run)
    while (runs.get() < 2) {
      Disposable repeat = never.subscribe(v -> {}, e -> answers.release());
      answers.acquireUninterruptibly(); // refused, or running
      repeat.dispose();
    }
    assertThat(runs).hasValue(2);
  }

  private Mono<String> never(IdempotencyPolicy policy, String key) {
    return IdempotentReactor.mono(
        idempotency,
        policy,
        key,
        () -> {
          runs.incrementAndGet();
          answers.release();
          return Mono.never();
        });
  }

  @Test
  void aFluxsItemsAreReplayedInOrderAndOneOverTheLimitIsNotRecorded() {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("reactor.items").resultType(Integer.class).build();
    Flux<Integer> three = items(policy, "i-1", 3);
    StepVerifier.create(three).expectNext(1, 2, 3).expectComplete().verify(TIMEOUT);
    StepVerifier.create(three).expectNext(1, 2, 3).expectComplete().verify(TIMEOUT);
    assertThat(runs).hasValue(1);

    // four items: over the limit of three, delivered whole but not recorded, and the key released
    Flux<Integer> four = items(policy, "i-2", 4);
    StepVerifier.create(four).expectNext(1, 2, 3, 4).expectComplete().verify(TIMEOUT);
    StepVerifier.create(four).expectNext(1, 2, 3, 4).expectComplete().verify(TIMEOUT);
    assertThat(runs).hasValue(3);
  }

  @Test
  void theOperatorsTakeTheirSourceAsTheBody() {
    IdempotencyPolicy policy = policy("reactor.operator");
    Mono<String> mono =
        Mono.fromSupplier(() -> "sent #" + runs.incrementAndGet())
            .transformDeferred(IdempotentReactor.monoOperator(idempotency, policy, "o-1", "body"));
    StepVerifier.create(mono).expectNext("sent #1").verifyComplete();
    StepVerifier.create(mono).expectNext("sent #1").verifyComplete();

    IdempotencyPolicy itemsPolicy = IdempotencyPolicy.builder("reactor.operator.items").build();
    Flux<Object> flux =
        Flux.defer(() -> Flux.<Object>just("a", "b" + runs.incrementAndGet()))
            .transformDeferred(
                IdempotentReactor.fluxOperator(idempotency, itemsPolicy, "o-2", null));
    StepVerifier.create(flux).expectNext("a", "b2").verifyComplete();
    StepVerifier.create(flux).expectNext("a", "b2").verifyComplete();
    assertThat(runs).hasValue(2);
  }

  private Flux<Integer> items(IdempotencyPolicy policy, String key, int n) {
    return IdempotentReactor.flux(
        idempotency,
        policy,
        key,
        () -> {
          runs.incrementAndGet();
          return Flux.range(1, n);
        });
  }

  private static boolean awaitUninterruptibly(CountDownLatch latch) {
    try {
      return latch.await(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
