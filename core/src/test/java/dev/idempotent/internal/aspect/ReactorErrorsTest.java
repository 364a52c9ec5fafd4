package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.Idempotent;
import dev.idempotent.OnAmbiguousFailure;
import dev.idempotent.RealClockStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A {@code Mono} or {@code Flux} body that fails with an {@code Error}. Reactor rethrows the errors
 * it calls fatal ({@code Exceptions.throwIfJvmFatal}: a {@code LinkageError} such as {@code
 * ExceptionInInitializerError}, a {@code VirtualMachineError} such as {@code StackOverflowError})
 * out of {@code subscribe} instead of signalling them, and the body is subscribed once the claim's
 * stage is done: thrown there, the error used to vanish, no signal ever arrived and the key stayed
 * claimed and renewed. Per error kind, the caller must see what the same publisher gives without
 * the library, and the key must be settled as a failure of the call.
 */
class ReactorErrorsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final RealClockStore store = new RealClockStore();
  private final Bodies bodies = new Bodies();

  @BeforeEach
  void install() {
    Idempotency.install(IdempotencyConfig.builder().defaultStore(store).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  /** The errors a body may fail with: fatal to Reactor, and not. */
  static Stream<Supplier<Throwable>> errors() {
    return Stream.of(
        () -> new ExceptionInInitializerError("static init failed"),
        () -> new NoClassDefFoundError("com/example/Missing"),
        () -> new StackOverflowError("deep"),
        () -> new OutOfMemoryError("heap"),
        () -> new InternalError("vm"),
        () -> new AssertionError("not fatal to Reactor"),
        () -> new IllegalStateException("an exception, for comparison"));
  }

  static final class Bodies {
    final AtomicInteger runs = new AtomicInteger();
    volatile Throwable next;

    /**
     * Throws from inside the subscription, as a supplier's static initialiser would ({@code hide}:
     * a bare {@code fromSupplier}'s own {@code block} calls the supplier directly).
     */
    static Mono<String> throwing(Throwable error, AtomicInteger runs) {
      return Mono.<String>fromSupplier(
              () -> {
                runs.incrementAndGet();
                throw sneaky(error);
              })
          .hide();
    }

    static Flux<Integer> throwingAfterOne(Throwable error, AtomicInteger runs) {
      return Flux.range(1, 3)
          .map(
              i -> {
                if (i == 1) {
                  runs.incrementAndGet();
                }
                if (i == 2) {
                  throw sneaky(error);
                }
                return i;
              });
    }

    @Idempotent(key = "#id")
    Mono<String> mono(String id) {
      return throwing(next, runs);
    }

    @Idempotent(key = "#id")
    Flux<Integer> flux(String id) {
      return throwingAfterOne(next, runs);
    }

    @Idempotent(key = "#id", onAmbiguousFailure = OnAmbiguousFailure.BLOCK)
    Mono<String> blocking(String id) {
      return throwing(next, runs);
    }
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }

  private <T> T call(String name, Object... args) throws Throwable {
    return PlannedCalls.call(bodies, name, args);
  }

  /** What {@code block} throws: compared by class and by the error inside it. */
  private static void assertSameOutcome(Throwable woven, Throwable bare, Throwable error) {
    assertThat(woven).as("the woven call fails as the bare publisher does").isNotNull();
    assertThat(woven.getClass()).isEqualTo(bare.getClass());
    assertThat(Exceptions.unwrap(bare)).isSameAs(error);
    assertThat(Exceptions.unwrap(woven)).isSameAs(error);
  }

  @ParameterizedTest
  @MethodSource("errors")
  @Timeout(60)
  void aMonoGivesWhatItGivesWithoutTheLibraryAndItsKeyIsReleased(Supplier<Throwable> kind)
      throws Throwable {
    Throwable error = kind.get();
    Throwable bare =
        catchThrowable(() -> Bodies.throwing(error, new AtomicInteger()).block(TIMEOUT));

    bodies.next = error;
    Throwable woven = catchThrowable(() -> this.<Mono<String>>call("mono", "m-1").block(TIMEOUT));
    assertSameOutcome(woven, bare, error);

    // settled as a failure (released by default): the next attempt runs again
    Throwable again = catchThrowable(() -> this.<Mono<String>>call("mono", "m-1").block(TIMEOUT));
    assertThat(Exceptions.unwrap(again)).isSameAs(error);
    assertThat(bodies.runs).hasValue(2);
    assertThat(store.renewals).as("nothing is left renewed").hasValue(0);
  }

  @ParameterizedTest
  @MethodSource("errors")
  @Timeout(60)
  void aFluxGivesWhatItGivesWithoutTheLibraryAndItsKeyIsReleased(Supplier<Throwable> kind)
      throws Throwable {
    Throwable error = kind.get();
    Throwable bare =
        catchThrowable(
            () -> Bodies.throwingAfterOne(error, new AtomicInteger()).collectList().block(TIMEOUT));

    bodies.next = error;
    Flux<Integer> flux = call("flux", "f-1");
    Throwable woven = catchThrowable(() -> flux.collectList().block(TIMEOUT));
    assertSameOutcome(woven, bare, error);

    Flux<Integer> repeat = call("flux", "f-1");
    StepVerifier.create(repeat)
        .expectNext(1)
        .expectErrorSatisfies(e -> assertThat(e).isSameAs(error))
        .verify(TIMEOUT);
    assertThat(bodies.runs).hasValue(2);
  }

  @Test
  @Timeout(60)
  void anErrorIsSettledByTheAmbiguousFailurePolicy() throws Throwable {
    Throwable error = new ExceptionInInitializerError("static init failed");
    bodies.next = error;
    Throwable woven =
        catchThrowable(() -> this.<Mono<String>>call("blocking", "b-1").block(TIMEOUT));
    assertThat(woven).isSameAs(error);
    Throwable repeat =
        catchThrowable(() -> this.<Mono<String>>call("blocking", "b-1").block(TIMEOUT));
    assertThat(repeat).isInstanceOf(IdempotencyBlockedException.class);
    assertThat(bodies.runs).hasValue(1);
  }

  @Test
  @Timeout(60)
  void theErrorReachesASubscribersErrorHandler() throws Throwable {
    Throwable error = new StackOverflowError("deep");
    bodies.next = error;
    Mono<String> mono = call("mono", "s-1");
    StepVerifier.create(mono)
        .expectErrorSatisfies(e -> assertThat(e).isSameAs(error))
        .verify(TIMEOUT);
    assertThat(List.of(bodies.runs.get())).containsExactly(1);
  }
}
