package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.IdempotencyInProgressException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.Idempotent;
import dev.idempotent.InvocationContext;
import dev.idempotent.KeyResolver;
import dev.idempotent.OnCancel;
import dev.idempotent.OnInProgress;
import dev.idempotent.RealClockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

/**
 * Mono and Flux results: assembly runs nothing, each subscription is one attempt, refusals arrive
 * as error signals, Flux items are replayed in order, cancellation settles by {@link OnCancel}.
 */
class ReactorResultsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final RealClockStore store = new RealClockStore();

  @BeforeEach
  void install() {
    Idempotency.install(
        IdempotencyConfig.builder().defaultStore(store).fluxLimits(3, 1 << 20).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  /** The methods under test, called the way the woven aspect calls them. */
  static final class Payments {
    final AtomicInteger runs = new AtomicInteger();
    volatile Mono<String> next;

    // docs/reactive.md: a Mono method (begin)
    @Idempotent(key = "#id")
    Mono<String> pay(String id) {
      return Mono.fromSupplier(() -> "paid " + id + " #" + runs.incrementAndGet());
    }

    // docs/reactive.md: a Mono method (end)

    @Idempotent(key = "#id")
    Mono<Void> nothing(String id) {
      return Mono.fromRunnable(runs::incrementAndGet);
    }

    @Idempotent(key = "#id", onInProgress = OnInProgress.WAIT, waitTimeout = "5s")
    Mono<String> slow(String id) {
      runs.incrementAndGet();
      return next;
    }

    @Idempotent(key = "#id")
    Mono<String> held(String id) {
      runs.incrementAndGet();
      return next;
    }

    @Idempotent(key = "#id", lease = "300ms")
    Mono<String> cancelledKept(String id) {
      runs.incrementAndGet();
      return Mono.never();
    }

    @Idempotent(key = "#id", onCancel = OnCancel.RELEASE)
    Mono<String> cancelledReleased(String id) {
      runs.incrementAndGet();
      return Mono.never();
    }

    @Idempotent(key = "#id")
    Mono<String> failing(String id) {
      runs.incrementAndGet();
      return Mono.error(new IllegalStateException("declined"));
    }

    @Idempotent(key = "#id")
    Flux<Integer> items(String id, int n) {
      runs.incrementAndGet();
      return Flux.range(1, n);
    }

    @Idempotent(keyResolver = TenantFromContext.class)
    Mono<String> tenant(String id) {
      return Mono.just("tenant run " + runs.incrementAndGet());
    }

    @Idempotent(key = "#id")
    Publisher<String> publisher(String id) {
      return Mono.just(id);
    }

    @Idempotent(key = "#id")
    Stream<String> stream(String id) {
      return Stream.of(id);
    }

    @Idempotent(key = "#id")
    Iterator<String> iterator(String id) {
      return List.of(id).iterator();
    }
  }

  /** A resolver that reads the tenant from the subscriber's context. */
  public static final class TenantFromContext implements KeyResolver {
    @Override
    public String resolve(InvocationContext context) {
      Context c = (Context) context.subscriberContext();
      return c.get("tenant") + ":" + context.arguments()[0];
    }
  }

  private final Payments payments = new Payments();

  private void awaitRuns(int n) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (payments.runs.get() < n) {
      assertThat(System.nanoTime()).as("the body runs in time").isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  private <T> T call(String name, Object... args) throws Throwable {
    return PlannedCalls.call(payments, name, args);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void callingOnlyAssemblesAndEachSubscriptionIsOneAttempt() throws Throwable {
    Mono<String> mono = call("pay", "p-1");
    assertThat(payments.runs).hasValue(0);
    assertThat(store.claims).hasValue(0);

    StepVerifier.create(mono).expectNext("paid p-1 #1").expectComplete().verify(TIMEOUT);
    StepVerifier.create(mono).expectNext("paid p-1 #1").expectComplete().verify(TIMEOUT);
    Mono<String> again = call("pay", "p-1");
    StepVerifier.create(again).expectNext("paid p-1 #1").expectComplete().verify(TIMEOUT);
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void anEmptyMonoIsRecordedAndReplayedAsEmpty() throws Throwable {
    StepVerifier.create(this.<Mono<Void>>call("nothing", "n-1")).expectComplete().verify(TIMEOUT);
    StepVerifier.create(this.<Mono<Void>>call("nothing", "n-1")).expectComplete().verify(TIMEOUT);
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void refusalsAreErrorSignalsNeverThrownByTheCall() throws Throwable {
    Sinks.One<String> gate = Sinks.one();
    payments.next = gate.asMono().map(v -> v);
    List<String> firstValues = new CopyOnWriteArrayList<>();
    Mono<String> first = call("held", "h-1");
    first.subscribe(firstValues::add);
    awaitRuns(1); // the first subscription holds the key and runs
    for (int i = 0; i < 15; i++) {
      Mono<String> repeat = call("held", "h-1"); // assembling never throws
      StepVerifier.create(repeat).expectError(IdempotencyInProgressException.class).verify(TIMEOUT);
    }
    Mono<String> blank = call("pay", new Object[] {null});
    StepVerifier.create(blank).expectError(IdempotencyKeyException.class).verify(TIMEOUT);
    gate.tryEmitValue("done");
    // the holder's value reaches its subscriber only once the outcome is recorded (on the store's
    // thread): from then on a repeat replays it
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (firstValues.isEmpty()) {
      assertThat(System.nanoTime()).as("the holder gets its value in time").isLessThan(deadline);
      Thread.sleep(2);
    }
    StepVerifier.create(this.<Mono<String>>call("held", "h-1"))
        .expectNext("done")
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(firstValues).containsExactly("done");
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void aWaiterGetsTheHoldersValueWithoutRunningIt() throws Throwable {
    Sinks.One<String> gate = Sinks.one();
    payments.next = gate.asMono();
    Mono<String> first = call("slow", "w-1");
    Mono<String> second = call("slow", "w-1");
    List<String> firstValues = new CopyOnWriteArrayList<>();
    first.subscribe(firstValues::add);
    awaitRuns(1);
    List<String> secondValues = new CopyOnWriteArrayList<>();
    second.subscribe(secondValues::add);
    Thread.sleep(100);
    assertThat(secondValues).isEmpty();
    gate.tryEmitValue("first value");
    StepVerifier.create(second).expectNext("first value").expectComplete().verify(TIMEOUT);
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (secondValues.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(firstValues).containsExactly("first value");
    assertThat(secondValues).containsExactly("first value");
    assertThat(payments.runs).hasValue(1);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void aFailureIsSettledLikeAThrownExceptionAndTheKeyIsFree() throws Throwable {
    StepVerifier.create(this.<Mono<String>>call("failing", "f-1"))
        .expectErrorMessage("declined")
        .verify(TIMEOUT);
    StepVerifier.create(this.<Mono<String>>call("failing", "f-1"))
        .expectErrorMessage("declined")
        .verify(TIMEOUT);
    assertThat(payments.runs).hasValue(2);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void aCancelledSubscriptionKeepsTheClaimUntilItsLeaseOrReleasesIt() throws Throwable {
    StepVerifier.create(this.<Mono<String>>call("cancelledKept", "c-1"))
        .expectSubscription()
        .thenAwait(Duration.ofMillis(50))
        .thenCancel()
        .verify(TIMEOUT);
    StepVerifier.create(this.<Mono<String>>call("cancelledKept", "c-1"))
        .expectError(IdempotencyInProgressException.class)
        .verify(TIMEOUT);
    Thread.sleep(400);
    StepVerifier.create(this.<Mono<String>>call("cancelledKept", "c-1"))
        .expectSubscription()
        .thenAwait(Duration.ofMillis(50))
        .thenCancel()
        .verify(TIMEOUT);
    assertThat(payments.runs).hasValue(2);

    StepVerifier.create(this.<Mono<String>>call("cancelledReleased", "c-2"))
        .expectSubscription()
        .thenAwait(Duration.ofMillis(50))
        .thenCancel()
        .verify(TIMEOUT);
    Thread.sleep(100);
    StepVerifier.create(this.<Mono<String>>call("cancelledReleased", "c-2"))
        .expectSubscription()
        .thenAwait(Duration.ofMillis(50))
        .thenCancel()
        .verify(TIMEOUT);
    assertThat(payments.runs).hasValue(4);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void aFluxsItemsAreReplayedInOrderUpToTheLimit() throws Throwable {
    StepVerifier.create(this.<Flux<Integer>>call("items", "i-1", 3))
        .expectNext(1, 2, 3)
        .expectComplete()
        .verify(TIMEOUT);
    StepVerifier.create(this.<Flux<Integer>>call("items", "i-1", 3))
        .expectNext(1, 2, 3)
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(payments.runs).hasValue(1);

    // four items: over the limit of three, delivered whole but not recorded
    StepVerifier.create(this.<Flux<Integer>>call("items", "i-2", 4))
        .expectNext(1, 2, 3, 4)
        .expectComplete()
        .verify(TIMEOUT);
    StepVerifier.create(this.<Flux<Integer>>call("items", "i-2", 4))
        .expectNext(1, 2, 3, 4)
        .expectComplete()
        .verify(TIMEOUT);
    assertThat(payments.runs).hasValue(3);
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void aKeyResolverReadsTheSubscribersContext() throws Throwable {
    List<String> got = new ArrayList<>();
    Mono<String> a = call("tenant", "t-1");
    got.add(a.contextWrite(Context.of("tenant", "acme")).block());
    got.add(a.contextWrite(Context.of("tenant", "acme")).block());
    got.add(a.contextWrite(Context.of("tenant", "globex")).block());
    assertThat(got).containsExactly("tenant run 1", "tenant run 1", "tenant run 2");
  }

  @Test
  @org.junit.jupiter.api.Timeout(30)
  void unsupportedDeferredTypesAreRefusedAtTheFirstCallNeverRecorded() {
    for (String name : List.of("publisher", "stream", "iterator")) {
      assertThatThrownBy(() -> call(name, "x"))
          .as(name)
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("cannot be recorded faithfully");
    }
    assertThat(store.claims).hasValue(0);
  }
}
