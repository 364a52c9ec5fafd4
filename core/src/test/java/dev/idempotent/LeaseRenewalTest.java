package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease renewal on the real clock: claims whose renewal is late really end and can be taken over.
 */
class LeaseRenewalTest {
  private final RealClockStore healthy = new RealClockStore();
  private final RealClockStore hanging = new RealClockStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final CountDownLatch endOfTest = new CountDownLatch(1);

  @AfterEach
  void tearDown() {
    endOfTest.countDown();
    pool.shutdownNow();
  }

  /**
   * Repeats {@code policy} on {@code key} every 100 ms until {@code first} is done, each repeat
   * counting into {@code runs} if it runs the method; returns how many repeats were rejected as in
   * progress.
   */
  private static int repeatWhileRunning(
      Idempotency idem, IdempotencyPolicy policy, String key, Future<?> first, AtomicInteger runs)
      throws Exception {
    int rejected = 0;
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!first.isDone() && System.nanoTime() < giveUp) {
      Thread.sleep(100);
      try {
        idem.execute(
            policy,
            key,
            () -> {
              runs.incrementAndGet();
              return "repeat";
            });
      } catch (IdempotencyInProgressException e) {
        rejected++;
      }
    }
    return rejected;
  }

  private static Callable<String> sleeping(long millis, String result, AtomicInteger runs) {
    return () -> {
      runs.incrementAndGet();
      Thread.sleep(millis);
      return result;
    };
  }

  @Test
  void aRenewThatHangsOnOneStoreDoesNotDelayTheRenewalsOfAnotherStore() throws Exception {
    hanging.beforeRenew = () -> endOfTest.await(3, TimeUnit.SECONDS);
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(healthy)
                .store("hanging", hanging)
                .listener(events::add)
                .build());
    IdempotencyPolicy onHealthy =
        IdempotencyPolicy.builder("renewal.healthy").lease(Duration.ofMillis(900)).build();
    IdempotencyPolicy onHanging =
        IdempotencyPolicy.builder("renewal.hanging")
            .store("hanging")
            .lease(Duration.ofMillis(900))
            .build();
    AtomicInteger hangingRuns = new AtomicInteger();
    AtomicInteger healthyRuns = new AtomicInteger();

    Future<String> slow =
        pool.submit(() -> idem.execute(onHanging, "k", sleeping(3000, "slow", hangingRuns)));
    Future<String> first =
        pool.submit(() -> idem.execute(onHealthy, "k", sleeping(3000, "first", healthyRuns)));
    int rejected = repeatWhileRunning(idem, onHealthy, "k", first, healthyRuns);

    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(healthyRuns)
        .as("the 3 s call on the healthy store kept its 900 ms lease: it ran once")
        .hasValue(1);
    assertThat(rejected).as("repeats while it ran were rejected as in progress").isGreaterThan(10);
    assertThat(idem.execute(onHealthy, "k", () -> "again")).isEqualTo("first");
    assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("slow");
    assertThat(events)
        .as("the hanging store's late renewal was reported")
        .anySatisfy(
            e -> {
              assertThat(e.type()).isEqualTo(IdempotencyEvent.Type.RENEWAL_LATE);
              assertThat(e.scope()).isEqualTo("renewal.hanging");
            });
  }

  @Test
  void anErrorThrownByARenewDoesNotStopLaterRenewals() throws Exception {
    AtomicBoolean thrown = new AtomicBoolean();
    healthy.beforeRenew =
        () -> {
          if (thrown.compareAndSet(false, true)) {
            throw new Error("simulated failure inside renew");
          }
        };
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(healthy).listener(events::add).build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("renewal.error").lease(Duration.ofMillis(300)).build();
    AtomicInteger runs = new AtomicInteger();

    idem.execute(policy, "first", sleeping(400, "first", runs));
    assertThat(thrown).as("the first renewal threw an Error").isTrue();

    AtomicInteger laterRuns = new AtomicInteger();
    Future<String> later =
        pool.submit(() -> idem.execute(policy, "later", sleeping(1200, "later", laterRuns)));
    int rejected = repeatWhileRunning(idem, policy, "later", later, laterRuns);

    assertThat(later.get(10, TimeUnit.SECONDS)).isEqualTo("later");
    assertThat(laterRuns)
        .as("a later 1.2 s call on a 300 ms lease was still renewed: it ran once")
        .hasValue(1);
    assertThat(rejected).isGreaterThan(5);
    assertThat(events)
        .anySatisfy(
            e -> {
              assertThat(e.type()).isEqualTo(IdempotencyEvent.Type.RENEWAL_FAILED);
              assertThat(e.error())
                  .isInstanceOf(Error.class)
                  .hasMessage("simulated failure inside renew");
            });
  }

  @Test
  void aStageThatNeverCompletesFreesItsKeyAfterTheMaxHoldAndTheLease() throws Exception {
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(healthy)
                .maxHold(Duration.ofMillis(500))
                .listener(events::add)
                .build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("renewal.max-hold").lease(Duration.ofMillis(300)).build();

    long start = System.nanoTime();
    CompletionStage<String> dropped = idem.executeAsync(policy, "k", null, CompletableFuture::new);
    String repeat = null;
    while (repeat == null && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
      try {
        repeat = idem.call(policy, "k", () -> "ran again");
      } catch (IdempotencyInProgressException e) {
        Thread.sleep(50);
      }
    }
    Duration waited = Duration.ofNanos(System.nanoTime() - start);

    assertThat(repeat)
        .as("a repeat ran the method once the dropped stage's claim ended")
        .isEqualTo("ran again");
    assertThat(waited)
        .as("the claim was renewed past its 300 ms lease, up to the 500 ms max-hold")
        .isGreaterThanOrEqualTo(Duration.ofMillis(500));
    assertThat(dropped.toCompletableFuture()).isNotDone();
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .contains(IdempotencyEvent.Type.MAX_HOLD_REACHED);
  }

  @Test
  void aCallShorterThanTheMaxHoldIsRenewedThroughout() throws Exception {
    Idempotency idem =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(healthy)
                .maxHold(Duration.ofSeconds(5))
                .listener(events::add)
                .build());
    IdempotencyPolicy policy =
        IdempotencyPolicy.builder("renewal.within-max-hold").lease(Duration.ofMillis(300)).build();
    AtomicInteger runs = new AtomicInteger();
    Future<String> first =
        pool.submit(() -> idem.execute(policy, "k", sleeping(1000, "first", runs)));
    repeatWhileRunning(idem, policy, "k", first, runs);
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(runs).hasValue(1);
    assertThat(events)
        .extracting(IdempotencyEvent::type)
        .doesNotContain(IdempotencyEvent.Type.MAX_HOLD_REACHED);
  }
}
