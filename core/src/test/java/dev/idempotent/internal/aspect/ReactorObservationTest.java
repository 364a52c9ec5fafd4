package dev.idempotent.internal.aspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyObserver;
import dev.idempotent.Idempotent;
import dev.idempotent.RealClockStore;
import io.micrometer.context.ContextRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code Mono} and {@code Flux} methods, called as the woven aspect calls them, with Reactor's
 * automatic context propagation: the call is current (as its observer makes it current, a thread
 * local registered with Micrometer's context-propagation library, as a tracer's is) wherever the
 * method's pipeline runs, and a call starts with what the subscriber's context carries current.
 */
class ReactorObservationTest {
  private static final String KEY = "idempotent.test.current";
  private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final List<String> startedUnder = new CopyOnWriteArrayList<>();

  /** Makes "call <scope>" current while the call's scope is open. */
  private final IdempotencyObserver observer =
      (scope, store, adapter, digest) -> {
        startedUnder.add(String.valueOf(CURRENT.get()));
        return new IdempotencyObserver.Call() {
          @Override
          public IdempotencyObserver.Scope openScope() {
            String previous = CURRENT.get();
            CURRENT.set("call " + scope);
            return () -> CURRENT.set(previous);
          }
        };
      };

  @BeforeAll
  static void propagate() {
    ContextRegistry.getInstance()
        .registerThreadLocalAccessor(KEY, CURRENT::get, CURRENT::set, CURRENT::remove);
    Hooks.enableAutomaticContextPropagation();
  }

  @AfterAll
  static void stopPropagating() {
    Hooks.disableAutomaticContextPropagation();
    ContextRegistry.getInstance().removeThreadLocalAccessor(KEY);
  }

  @BeforeEach
  void install() {
    Idempotency.install(
        IdempotencyConfig.builder().defaultStore(new RealClockStore()).observer(observer).build());
  }

  @AfterEach
  void reset() {
    Idempotency.reset();
  }

  static final class Orders {
    @Idempotent(scope = "orders.mono", key = "#id")
    Mono<String> mono(String id) {
      String atAssembly = CURRENT.get();
      return Mono.fromSupplier(() -> atAssembly + "|" + CURRENT.get())
          .publishOn(Schedulers.boundedElastic())
          .map(v -> v + "|" + CURRENT.get());
    }

    @Idempotent(scope = "orders.flux", key = "#id")
    Flux<String> flux(String id) {
      return Flux.just("a", "b")
          .publishOn(Schedulers.boundedElastic())
          .map(v -> v + " " + CURRENT.get());
    }
  }

  @Test
  void aWovenMonosPipelineRunsInsideTheCallWhichStartsUnderTheSubscriber() throws Throwable {
    Mono<String> mono = PlannedCalls.call(new Orders(), "mono", "1");
    String value =
        mono.contextWrite(c -> c.put(KEY, "subscriber"))
            .subscribeOn(Schedulers.parallel())
            .block(TIMEOUT);
    assertThat(startedUnder).containsExactly("subscriber");
    assertThat(value).isEqualTo("call orders.mono|call orders.mono|call orders.mono");
  }

  @Test
  void aWovenFluxsPipelineRunsInsideTheCall() throws Throwable {
    Flux<String> flux = PlannedCalls.call(new Orders(), "flux", "1");
    List<String> items =
        flux.contextWrite(c -> c.put(KEY, "subscriber")).collectList().block(TIMEOUT);
    assertThat(items).containsExactly("a call orders.flux", "b call orders.flux");
    assertThat(startedUnder).containsExactly("subscriber");
  }
}
