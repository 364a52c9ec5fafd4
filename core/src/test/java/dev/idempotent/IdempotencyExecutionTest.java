package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.spi.RecordKey;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The protocol through the programmatic API, without weaving, on a fake-clock store. */
class IdempotencyExecutionTest {
  private final TestStore store = new TestStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private Idempotency idem;

  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder("test.op").resultType(Receipt.class).build();

  @BeforeEach
  void setUp() {
    idem =
        Idempotency.create(
            IdempotencyConfig.builder().defaultStore(store).listener(events::add).build());
  }

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  record Receipt(String id, int amount) implements Serializable {}

  private Receipt submit(String id) {
    runs.incrementAndGet();
    return new Receipt(id, runs.get());
  }

  /** A call on key {@code k} that holds its claim, inside the method, until {@link #release()}. */
  private final class HeldCall {
    private final CountDownLatch inside = new CountDownLatch(1);
    private final CountDownLatch finish = new CountDownLatch(1);
    final Future<Receipt> result;

    HeldCall(IdempotencyPolicy policy, java.util.concurrent.Callable<Receipt> body)
        throws InterruptedException {
      result =
          pool.submit(
              () ->
                  idem.execute(
                      policy,
                      "k",
                      () -> {
                        inside.countDown();
                        finish.await(5, TimeUnit.SECONDS);
                        return body.call();
                      }));
      assertThat(inside.await(5, TimeUnit.SECONDS)).as("the holder is inside the method").isTrue();
    }

    void release() {
      finish.countDown();
    }
  }

  private List<IdempotencyEvent.Type> eventTypes() {
    List<IdempotencyEvent.Type> out = new ArrayList<>();
    events.forEach(e -> out.add(e.type()));
    return out;
  }

  @Test
  void firstCallRunsAndRepeatsReplayTheRecordedResult() throws Exception {
    Receipt first = idem.execute(POLICY, "k1", () -> submit("a"));
    Receipt second = idem.execute(POLICY, "k1", () -> submit("b"));
    Receipt other = idem.execute(POLICY, "k2", () -> submit("c"));

    assertThat(second).isEqualTo(first).isNotSameAs(first);
    assertThat(other.id()).isEqualTo("c");
    assertThat(runs).hasValue(2);
    assertThat(eventTypes())
        .containsExactly(
            IdempotencyEvent.Type.EXECUTED,
            IdempotencyEvent.Type.REPLAYED,
            IdempotencyEvent.Type.EXECUTED);
  }

  @Test
  void userClassesOutsideTheAllowListAreNotRecordedNamingTheClassAndTheFix() throws Exception {
    IdempotencyPolicy untyped = IdempotencyPolicy.builder("test.untyped").build();
    assertThat(idem.execute(untyped, "k", () -> submit("a")).id()).isEqualTo("a");
    assertThat(idem.execute(untyped, "k", () -> submit("b")).id()).isEqualTo("b");
    assertThat(store.size()).isZero();
    assertThat(eventTypes())
        .containsExactly(IdempotencyEvent.Type.STORE_ERROR, IdempotencyEvent.Type.STORE_ERROR);
    assertThat(events.get(0).error())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(Receipt.class.getName())
        .hasMessageContaining("idempotent.codec.allow");
  }

  @Test
  void nullResultsAreRecordedAndReplayed() throws Exception {
    assertThat(
            idem.<String>execute(
                POLICY,
                "k",
                () -> {
                  runs.incrementAndGet();
                  return null;
                }))
        .isNull();
    assertThat(
            idem.<String>execute(
                POLICY,
                "k",
                () -> {
                  runs.incrementAndGet();
                  return "late";
                }))
        .isNull();
    assertThat(runs).hasValue(1);
  }

  @Test
  void rejectPolicyThrowsDuplicateRequestWithoutRunning() throws Exception {
    IdempotencyPolicy reject =
        IdempotencyPolicy.builder("test.reject")
            .resultType(Receipt.class)
            .onDuplicate(OnDuplicate.REJECT)
            .build();
    idem.execute(reject, "k", () -> submit("a"));
    assertThatThrownBy(() -> idem.execute(reject, "k", () -> submit("b")))
        .isInstanceOf(DuplicateRequestException.class)
        .satisfies(e -> assertThat(((IdempotencyException) e).httpStatus()).isEqualTo(409))
        .satisfies(e -> assertThat(((IdempotencyException) e).scope()).isEqualTo("test.reject"))
        .hasMessageNotContaining("\"k\"");
    assertThat(runs).hasValue(1);
  }

  @Test
  void inProgressDuplicateIsRejectedAtOnceWithTheLeaseRemaining() throws Exception {
    HeldCall holder = new HeldCall(POLICY, () -> submit("a"));

    assertThatThrownBy(() -> idem.execute(POLICY, "k", () -> submit("b")))
        .isInstanceOfSatisfying(
            IdempotencyInProgressException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(409);
              assertThat(e.leaseRemaining())
                  .isPositive()
                  .isLessThanOrEqualTo(IdempotencyConfig.DEFAULT_LEASE);
            });
    holder.release();
    assertThat(holder.result.get(5, TimeUnit.SECONDS).id()).isEqualTo("a");
    assertThat(runs).hasValue(1);
  }

  @Test
  void waitingDuplicateGetsTheHoldersResult() throws Exception {
    IdempotencyPolicy wait =
        IdempotencyPolicy.builder("test.wait")
            .resultType(Receipt.class)
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofSeconds(5))
            .build();
    HeldCall holder = new HeldCall(wait, () -> submit("a"));
    Future<Receipt> waiter = pool.submit(() -> idem.execute(wait, "k", () -> submit("b")));
    Thread.sleep(50);
    assertThat(waiter.isDone()).isFalse();
    holder.release();

    assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo(holder.result.get(5, TimeUnit.SECONDS));
    assertThat(runs).hasValue(1);
  }

  @Test
  void waitingDuplicateRunsItselfWhenTheHolderFailsAndReleases() throws Exception {
    IdempotencyPolicy wait =
        IdempotencyPolicy.builder("test.wait")
            .resultType(Receipt.class)
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofSeconds(5))
            .build();
    HeldCall holder =
        new HeldCall(
            wait,
            () -> {
              throw new IOException("gateway down");
            });
    Future<Receipt> waiter = pool.submit(() -> idem.execute(wait, "k", () -> submit("b")));
    Thread.sleep(30);
    holder.release();

    assertThat(waiter.get(5, TimeUnit.SECONDS).id()).isEqualTo("b");
    assertThatThrownBy(() -> holder.result.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void waitTimesOutWithInProgress() throws Exception {
    IdempotencyPolicy wait =
        IdempotencyPolicy.builder("test.wait")
            .resultType(Receipt.class)
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofMillis(150))
            .build();
    HeldCall holder = new HeldCall(wait, () -> submit("a"));
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> idem.execute(wait, "k", () -> submit("b")))
        .isInstanceOf(IdempotencyInProgressException.class)
        .hasMessageContaining("waited 150 ms");
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(150));
    holder.release();
  }

  @Test
  void unrecordedFailureReleasesTheKeyAndIsRethrownUnchanged() throws Exception {
    IOException boom = new IOException("boom");
    assertThatThrownBy(
            () ->
                idem.execute(
                    POLICY,
                    "k",
                    () -> {
                      runs.incrementAndGet();
                      throw boom;
                    }))
        .isSameAs(boom);
    assertThat(store.size()).isZero();
    assertThat(idem.execute(POLICY, "k", () -> submit("retry")).id()).isEqualTo("retry");
    assertThat(runs).hasValue(2);
  }

  static class PaymentDeclinedException extends RuntimeException {
    public PaymentDeclinedException(String message) {
      super(message);
    }
  }

  @Test
  void recordedFailureIsReplayedWithTheSameTypeAndMessage() {
    IdempotencyPolicy p =
        IdempotencyPolicy.builder("test.pay")
            .recordFailures(PaymentDeclinedException.class)
            .build();
    assertThatThrownBy(
            () ->
                idem.execute(
                    p,
                    "k",
                    () -> {
                      runs.incrementAndGet();
                      throw new PaymentDeclinedException("card 42 declined");
                    }))
        .isInstanceOf(PaymentDeclinedException.class);
    assertThatThrownBy(() -> idem.execute(p, "k", () -> submit("again")))
        .isExactlyInstanceOf(PaymentDeclinedException.class)
        .hasMessage("card 42 declined");
    assertThat(runs).hasValue(1);
  }

  @Test
  void differentPayloadForTheSameKeyIsAMismatch() throws Exception {
    idem.execute(POLICY, "k", new Receipt("x", 1), () -> submit("a"));
    assertThat(idem.execute(POLICY, "k", new Receipt("x", 1), () -> submit("b")).id())
        .isEqualTo("a");
    assertThatThrownBy(() -> idem.execute(POLICY, "k", new Receipt("x", 2), () -> submit("c")))
        .isInstanceOfSatisfying(
            IdempotencyKeyMismatchException.class, e -> assertThat(e.httpStatus()).isEqualTo(422));
    assertThat(runs).hasValue(1);
  }

  @Test
  void storeFailureBeforeRunningIsFailClosedByDefault() {
    store.failClaim = new IllegalStateException("connection refused");
    assertThatThrownBy(() -> idem.execute(POLICY, "k", () -> submit("a")))
        .isInstanceOfSatisfying(
            IdempotencyStoreException.class, e -> assertThat(e.httpStatus()).isEqualTo(503))
        .hasMessageContaining(IllegalStateException.class.getName())
        .hasRootCauseMessage("connection refused");
    assertThat(runs).hasValue(0);
  }

  @Test
  void failOpenRunsTheMethodUnprotectedAndSaysSo() throws Exception {
    Idempotency open =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .storeFailurePolicy(StoreFailurePolicy.FAIL_OPEN)
                .listener(events::add)
                .build());
    store.failClaim = new IllegalStateException("connection refused");
    assertThat(open.execute(POLICY, "k", () -> submit("a")).id()).isEqualTo("a");
    assertThat(eventTypes())
        .contains(IdempotencyEvent.Type.STORE_ERROR, IdempotencyEvent.Type.FAIL_OPEN);
  }

  @Test
  void recordingFailureAfterTheMethodRanStillReturnsTheResult() throws Exception {
    store.failComplete = new IllegalStateException("write timeout");
    assertThat(idem.execute(POLICY, "k", () -> submit("a")).id()).isEqualTo("a");
    assertThat(eventTypes()).containsExactly(IdempotencyEvent.Type.STORE_ERROR);
    assertThat(events.get(0).error()).hasMessage("write timeout");

    store.failComplete = null; // the store recovers: the background retry records the outcome
    awaitEvent(IdempotencyEvent.Type.EXECUTED);
    assertThat(idem.execute(POLICY, "k", () -> submit("b")).id()).isEqualTo("a");
    assertThat(runs).hasValue(1);
  }

  @Test
  void retriesOfAFailedRecordingStopWhenTheLeaseWouldEnd() throws Exception {
    IdempotencyPolicy shortLease =
        IdempotencyPolicy.builder("test.retry")
            .resultType(Receipt.class)
            .lease(Duration.ofMillis(400))
            .build();
    store.failComplete = new IllegalStateException("still down");
    idem.execute(shortLease, "k", () -> submit("a"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (eventTypes().stream().filter(t -> t == IdempotencyEvent.Type.STORE_ERROR).count() < 2
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(eventTypes())
        .containsExactly(IdempotencyEvent.Type.STORE_ERROR, IdempotencyEvent.Type.STORE_ERROR);
  }

  private void awaitEvent(IdempotencyEvent.Type type) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!eventTypes().contains(type) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(eventTypes()).contains(type);
  }

  @Test
  void aListenerThatThrowsDoesNotBreakTheCall() throws Exception {
    Idempotency noisy =
        Idempotency.create(
            IdempotencyConfig.builder()
                .defaultStore(store)
                .listener(
                    e -> {
                      throw new IllegalStateException("listener bug");
                    })
                .build());
    assertThat(noisy.execute(POLICY, "k", () -> submit("a")).id()).isEqualTo("a");
    assertThat(noisy.execute(POLICY, "k", () -> submit("b")).id()).isEqualTo("a");
  }

  @Test
  void blankOrNullKeysAreRejectedBeforeRunning() {
    assertThatThrownBy(() -> idem.execute(POLICY, " ", () -> submit("a")))
        .isInstanceOfSatisfying(
            IdempotencyKeyException.class, e -> assertThat(e.httpStatus()).isEqualTo(400))
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> idem.execute(POLICY, null, () -> submit("a")))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasMessageContaining("null");
    assertThat(runs).hasValue(0);
  }

  static final class NotSerializableResult {
    final String value = "v";
  }

  @Test
  void aResultTheCodecCannotEncodeIsReturnedAndTheKeyReleased() throws Exception {
    NotSerializableResult r =
        idem.execute(
            POLICY,
            "k",
            () -> {
              runs.incrementAndGet();
              return new NotSerializableResult();
            });
    assertThat(r.value).isEqualTo("v");
    assertThat(store.size()).isZero();
    assertThat(eventTypes()).containsExactly(IdempotencyEvent.Type.STORE_ERROR);
    assertThat(events.get(0).error())
        .hasMessageContaining(NotSerializableResult.class.getName())
        .hasMessageContaining("Serializable")
        .hasMessageContaining("jackson");
  }

  @Test
  void aHolderWhoseClaimWasTakenOverIsFencedButStillGetsItsResult() throws Exception {
    Receipt r =
        idem.execute(
            POLICY,
            "k",
            () -> {
              store.stealClaim(store.onlyKey(), "someone-else");
              return submit("a");
            });
    assertThat(r.id()).isEqualTo("a");
    assertThat(eventTypes()).containsExactly(IdempotencyEvent.Type.FENCED);
    assertThat(store.read(store.onlyKey()).orElseThrow().ownerToken()).isEqualTo("someone-else");
  }

  @Test
  void keysLongerThanTheStoreIndexesAreDigestedNotTruncated() throws Exception {
    store.maxKeyLength = 64;
    String prefix = "x".repeat(200);
    idem.execute(POLICY, prefix + "1", () -> submit("a"));
    Receipt second = idem.execute(POLICY, prefix + "2", () -> submit("b"));
    assertThat(second.id()).isEqualTo("b");
    assertThat(store.read(RecordKey.of("test.op", prefix + "1").fittedTo(64))).isPresent();
    assertThat(RecordKey.of("test.op", prefix + "1").fittedTo(64).key())
        .startsWith("sha256:")
        .hasSize(50);
  }

  @Test
  void completionStagesAreRecordedWhenTheyComplete() throws Exception {
    IdempotencyPolicy strings =
        IdempotencyPolicy.builder("test.stage").resultType(String.class).build();
    CompletableFuture<String> pending = new CompletableFuture<>();
    var first =
        idem.executeAsync(
            strings,
            "k",
            null,
            () -> {
              runs.incrementAndGet();
              return pending;
            });
    assertThat(first.toCompletableFuture().isDone()).isFalse();
    pending.complete("done");
    assertThat(first.toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo("done");

    var repeat =
        idem.executeAsync(
            strings,
            "k",
            null,
            () -> {
              runs.incrementAndGet();
              return CompletableFuture.completedFuture("x");
            });
    assertThat(repeat.toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(runs).hasValue(1);
  }

  @Test
  void aStageWhoseOutcomeMustFailTheCallFailsTheCallersStage() throws Exception {
    store.failComplete =
        dev.idempotent.spi.OutcomeNotRecordedException.failingTheCall(
            "the caller's transaction is aborted", new IllegalStateException("aborted"));
    IdempotencyPolicy strings =
        IdempotencyPolicy.builder("test.stage").resultType(String.class).build();
    CompletableFuture<String> pending = new CompletableFuture<>();
    var first = idem.executeAsync(strings, "k", null, () -> pending);
    pending.complete("done");
    assertThatThrownBy(() -> first.toCompletableFuture().get(1, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IdempotencyStoreException.class)
        .cause()
        .hasCauseInstanceOf(dev.idempotent.spi.OutcomeNotRecordedException.class);
  }

  @Test
  void aFailedStageReleasesTheKey() throws Exception {
    var failed =
        idem.executeAsync(
            POLICY,
            "k",
            null,
            () -> CompletableFuture.<String>failedFuture(new IOException("down")));
    assertThatThrownBy(() -> failed.toCompletableFuture().get(1, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IOException.class);
    var retry = idem.executeAsync(POLICY, "k", null, () -> CompletableFuture.completedFuture("ok"));
    assertThat(retry.toCompletableFuture().get(1, TimeUnit.SECONDS)).isEqualTo("ok");
  }

  @Test
  void theLeaseIsRenewedWhileTheMethodRuns() throws Exception {
    IdempotencyPolicy shortLease =
        IdempotencyPolicy.builder("test.lease")
            .resultType(Receipt.class)
            .lease(Duration.ofMillis(150))
            .build();
    idem.execute(
        shortLease,
        "k",
        () -> {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
          while (store.renewals.get() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
          }
          return submit("a");
        });
    assertThat(store.renewals.get()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void unknownStoreNameIsAConfigurationError() {
    IdempotencyPolicy p = IdempotencyPolicy.builder("test").store("payments").build();
    assertThatThrownBy(() -> idem.execute(p, "k", () -> submit("a")))
        .isInstanceOfSatisfying(
            IdempotencyConfigurationException.class, e -> assertThat(e.httpStatus()).isEqualTo(500))
        .hasMessageContaining("unknown store 'payments'");
  }
}
