package dev.idempotent.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.OnInProgress;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.scheduler.Schedulers;

/**
 * Proves with BlockHound that the non-blocking protocol ({@link Idempotency#executeDeferred}) on a
 * store never blocks a non-blocking thread: each call starts on a Reactor {@code parallel()} thread
 * and continues on whatever thread completes the store's stages (Netty's event loops are
 * non-blocking threads too when Netty is on the class path). Every blocking call BlockHound sees on
 * such a thread is collected and fails the check, even one whose error something swallowed.
 *
 * <p>Needs {@code io.projectreactor.tools:blockhound} and {@code reactor-core} on the test class
 * path, and on JDK 13 or later the JVM flag {@code -XX:+AllowRedefinitionToAddDeleteMethods}; run
 * it in a JVM of its own (a surefire execution of its own), since BlockHound stays installed.
 */
public abstract class NonBlockingPathCheck {
  private static final List<String> BLOCKING_CALLS = new CopyOnWriteArrayList<>();
  private static final long TIMEOUT_SECONDS = 30;

  private IdempotencyStore store;
  private Idempotency idempotency;
  private final String scope = "non-blocking-" + UUID.randomUUID();
  private final AtomicInteger runs = new AtomicInteger();

  /** The store under test; closed after each check. */
  protected abstract IdempotencyStore createStore();

  @BeforeAll
  static void installBlockHound() {
    // install(...) also applies the integrations found on the class path (Reactor's marks its
    // non-blocking threads, Netty's its event loops); a plain builder would apply none.
    // An idle pool thread waiting for its next task is not a blocked task: Redisson runs its
    // callbacks on a ThreadPoolExecutor of Netty threads, which Netty's integration marks.
    BlockHound.install(
        builder ->
            builder
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
                .blockingMethodCallback(
                    method -> {
                      BLOCKING_CALLS.add(method + " on " + Thread.currentThread().getName());
                      throw new BlockingOperationError(method);
                    }));
  }

  @BeforeEach
  void start() {
    BLOCKING_CALLS.clear();
    store = createStore();
    idempotency = Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
  }

  @AfterEach
  void stop() throws Exception {
    store.close();
  }

  /** Starts {@code call} on a Reactor parallel thread; the future completes with its stage. */
  private static <T> CompletableFuture<T> startOnParallel(Supplier<CompletionStage<T>> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Schedulers.parallel()
        .schedule(
            () -> {
              try {
                call.get()
                    .whenComplete(
                        (v, e) -> {
                          if (e != null) {
                            result.completeExceptionally(e);
                          } else {
                            result.complete(v);
                          }
                        });
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            });
    return result;
  }

  private static <T> T onParallel(Supplier<CompletionStage<T>> call) throws Exception {
    return startOnParallel(call).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private CompletionStage<String> pay(IdempotencyPolicy policy, String key) {
    return idempotency.executeDeferred(
        policy,
        key,
        "payload",
        () -> CompletableFuture.completedFuture("paid " + runs.incrementAndGet()));
  }

  @Test
  void blockHoundIsActiveOnTheThreadsTheChecksUse() throws Exception {
    CompletableFuture<Throwable> caught = new CompletableFuture<>();
    Schedulers.parallel()
        .schedule(
            () -> {
              try {
                Thread.sleep(1);
                caught.complete(null);
              } catch (Throwable t) {
                caught.complete(t);
              }
            });
    assertThat(caught.get(TIMEOUT_SECONDS, TimeUnit.SECONDS))
        .isInstanceOf(BlockingOperationError.class);
    BLOCKING_CALLS.clear();
  }

  @Test
  void aFirstCallAndItsReplayNeverBlock() throws Exception {
    IdempotencyPolicy policy = IdempotencyPolicy.builder(scope).build();
    assertThat(onParallel(() -> pay(policy, "k"))).isEqualTo("paid 1");
    assertThat(onParallel(() -> pay(policy, "k"))).isEqualTo("paid 1");
    assertThat(onParallel(() -> pay(policy, "other"))).isEqualTo("paid 2");
    assertThat(BLOCKING_CALLS).isEmpty();
  }

  @Test
  void waitingForAKeyInProgressNeverBlocks() throws Exception {
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder(scope)
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofSeconds(20))
            .build();
    CompletableFuture<String> slow = new CompletableFuture<>();
    java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
    CompletableFuture<String> first =
        startOnParallel(
            () ->
                idempotency.executeDeferred(
                    policy,
                    "k",
                    "payload",
                    () -> {
                      running.countDown();
                      return slow.thenApply(v -> v + " " + runs.incrementAndGet());
                    }));
    assertThat(running.await(TIMEOUT_SECONDS, TimeUnit.SECONDS))
        .as("the first call holds the key and runs")
        .isTrue();
    CompletableFuture<String> second = startOnParallel(() -> pay(policy, "k"));
    Thread.sleep(300); // the second one waits, on no thread
    assertThat(second).isNotDone();
    Schedulers.parallel().schedule(() -> slow.complete("paid"));

    assertThat(first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("paid 1");
    assertThat(second.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo("paid 1");
    assertThat(runs).hasValue(1);
    assertThat(BLOCKING_CALLS).isEmpty();
  }
}
