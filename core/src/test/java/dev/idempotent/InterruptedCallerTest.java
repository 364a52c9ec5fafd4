package dev.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calls from an interrupted thread, on a store that, like Redisson, fails every operation while the
 * calling thread's interrupt flag is set: an interrupt is never a store failure, the method never
 * runs because of one, and an outcome is not lost because the method's thread was interrupted.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InterruptedCallerTest {
  private static final String SCOPE = "test.interrupted";
  private static final IdempotencyPolicy POLICY =
      IdempotencyPolicy.builder(SCOPE).resultType(String.class).build();

  private final InterruptSensitiveStore store = new InterruptSensitiveStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void clearFlag() {
    Thread.interrupted();
  }

  private Idempotency idempotency(StoreFailurePolicy failurePolicy) {
    return Idempotency.create(
        IdempotencyConfig.builder()
            .defaultStore(store)
            .listener(events::add)
            .storeFailurePolicy(failurePolicy)
            .build());
  }

  private String body() {
    runs.incrementAndGet();
    return "done-" + runs.get();
  }

  private List<IdempotencyEvent.Type> eventTypes() {
    return events.stream().map(IdempotencyEvent::type).toList();
  }

  @ParameterizedTest
  @EnumSource(StoreFailurePolicy.class)
  void interruptedCallOfACompletedKeyIsAnInterruptErrorAndNeverRunsTheMethodAgain(
      StoreFailurePolicy failurePolicy) throws Exception {
    Idempotency idem = idempotency(failurePolicy);
    assertThat(idem.execute(POLICY, "k", this::body)).isEqualTo("done-1");
    events.clear();

    Thread.currentThread().interrupt();
    Throwable error = catchThrowable(() -> idem.execute(POLICY, "k", this::body));
    boolean stillInterrupted = Thread.interrupted();

    assertThat(error)
        .isInstanceOf(IdempotencyInterruptedException.class)
        .hasMessageContaining("interrupted")
        .hasMessageContaining(SCOPE);
    assertThat(((IdempotencyException) error).httpStatus()).isEqualTo(503);
    assertThat(stillInterrupted).as("the interrupt flag is still set").isTrue();
    assertThat(runs).as("executions").hasValue(1);
    assertThat(eventTypes())
        .doesNotContain(IdempotencyEvent.Type.FAIL_OPEN, IdempotencyEvent.Type.STORE_ERROR);
    assertThat(idem.execute(POLICY, "k", this::body))
        .as("a later call replays")
        .isEqualTo("done-1");
  }

  /**
   * Whether a store still answers on an interrupted thread varies; the executor decides before
   * asking it.
   */
  @ParameterizedTest
  @EnumSource(StoreFailurePolicy.class)
  void aThreadInterruptedOnEntryNeverReachesTheStore(StoreFailurePolicy failurePolicy) {
    Idempotency idem = idempotency(failurePolicy);
    int claimsBefore = store.inner.claims.get();

    Thread.currentThread().interrupt();
    Throwable error = catchThrowable(() -> idem.execute(POLICY, "fresh", this::body));

    assertThat(Thread.interrupted()).as("the interrupt flag is still set").isTrue();
    assertThat(error)
        .isInstanceOf(IdempotencyInterruptedException.class)
        .hasMessageContaining("before the call");
    assertThat(store.inner.claims).as("claims made").hasValue(claimsBefore);
    assertThat(runs).hasValue(0);
  }

  @Test
  void anInterruptSeenOnlyInTheCauseIsAnInterruptToo() {
    store.clearFlagWhenFailing = true;
    store.interruptDuringClaim = true;
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_OPEN);

    Throwable error = catchThrowable(() -> idem.execute(POLICY, "fresh", this::body));

    assertThat(error).isInstanceOf(IdempotencyInterruptedException.class);
    assertThat(Thread.interrupted()).as("the interrupt flag is set again").isTrue();
    assertThat(runs).hasValue(0);
  }

  @Test
  void aClaimThatReachedTheStoreBeforeTheInterruptSurfacedIsReleased() throws Exception {
    store.claimThenFail = true;
    store.interruptDuringClaim = true;
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_CLOSED);

    Throwable error = catchThrowable(() -> idem.execute(POLICY, "fresh", this::body));
    assertThat(Thread.interrupted()).isTrue();
    store.interruptDuringClaim = false;

    assertThat(error).isInstanceOf(IdempotencyInterruptedException.class);
    assertThat(store.inner.read(RecordKey.of(SCOPE, "fresh"))).as("no claim left behind").isEmpty();
    assertThat(idem.execute(POLICY, "fresh", this::body))
        .as("a retry runs at once")
        .isEqualTo("done-1");
  }

  @Test
  void theOutcomeOfAMethodThatInterruptedItsThreadIsRecordedAtOnce() throws Exception {
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_CLOSED);

    String result =
        idem.execute(
            POLICY,
            "k",
            () -> {
              Thread.currentThread()
                  .interrupt(); // the method was interrupted and kept the flag, as it should
              return body();
            });
    boolean stillInterrupted = Thread.interrupted();

    assertThat(result).isEqualTo("done-1");
    assertThat(stillInterrupted).as("the interrupt flag is still set").isTrue();
    IdempotencyRecord record = store.inner.read(RecordKey.of(SCOPE, "k")).orElseThrow();
    assertThat(record.status())
        .as("recorded before the call returned")
        .isEqualTo(RecordStatus.COMPLETED);
    assertThat(eventTypes()).containsExactly(IdempotencyEvent.Type.EXECUTED);
    assertThat(idem.execute(POLICY, "k", this::body)).isEqualTo("done-1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void theClaimOfAFailedMethodThatInterruptedItsThreadIsReleasedAtOnce() throws Exception {
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_CLOSED);
    IllegalStateException failure = new IllegalStateException("not recorded");

    Throwable error =
        catchThrowable(
            () ->
                idem.execute(
                    POLICY,
                    "k",
                    () -> {
                      Thread.currentThread().interrupt();
                      runs.incrementAndGet();
                      throw failure;
                    }));
    boolean stillInterrupted = Thread.interrupted();

    assertThat(error).isSameAs(failure);
    assertThat(stillInterrupted).isTrue();
    assertThat(store.inner.read(RecordKey.of(SCOPE, "k")))
        .as("released before the call returned")
        .isEmpty();
    assertThat(eventTypes()).doesNotContain(IdempotencyEvent.Type.STORE_ERROR);
    assertThat(idem.execute(POLICY, "k", this::body))
        .as("a retry runs at once")
        .isEqualTo("done-2");
  }

  @Test
  void aWaiterInterruptedWhileWaitingGetsAnInterruptError() throws Exception {
    Idempotency idem = idempotency(StoreFailurePolicy.FAIL_OPEN);
    IdempotencyPolicy wait =
        IdempotencyPolicy.builder(SCOPE)
            .resultType(String.class)
            .onInProgress(OnInProgress.WAIT)
            .waitTimeout(Duration.ofSeconds(20))
            .build();
    store.inner.claim(RecordKey.of(SCOPE, "held"), "holder", null, Duration.ofMinutes(5));

    AtomicReference<Throwable> error = new AtomicReference<>();
    AtomicBoolean flagAfter = new AtomicBoolean();
    Thread waiter =
        new Thread(
            () -> {
              error.set(catchThrowable(() -> idem.execute(wait, "held", this::body)));
              flagAfter.set(Thread.currentThread().isInterrupted());
            });
    waiter.start();
    assertThat(store.waiting.await(10, java.util.concurrent.TimeUnit.SECONDS))
        .as("the waiter waits")
        .isTrue();
    waiter.interrupt();
    waiter.join(10_000);

    assertThat(waiter.isAlive()).isFalse();
    assertThat(error.get())
        .isInstanceOf(IdempotencyInterruptedException.class)
        .hasMessageContaining("interrupted while waiting");
    assertThat(flagAfter).isTrue();
    assertThat(runs).hasValue(0);
  }

  /**
   * Delegates to a {@link TestStore}, but fails every operation while the calling thread is
   * interrupted, as Redisson does: a {@code RuntimeException} caused by an {@code
   * InterruptedException}, with the flag set again (or, with {@link #clearFlagWhenFailing},
   * cleared).
   */
  static final class InterruptSensitiveStore implements IdempotencyStore {
    final TestStore inner = new TestStore();
    volatile boolean clearFlagWhenFailing;
    volatile boolean claimThenFail;

    /**
     * Interrupts the calling thread inside {@code claim}: an interrupt that arrives while the claim
     * is under way.
     */
    volatile boolean interruptDuringClaim;

    /** Counted down when a caller starts waiting for a held key. */
    final java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);

    private void failIfInterrupted() {
      if (Thread.currentThread().isInterrupted()) {
        if (clearFlagWhenFailing) {
          Thread.interrupted();
        }
        throw new IllegalStateException("the command was cancelled", new InterruptedException());
      }
    }

    @Override
    public ClaimResult claim(RecordKey key, String ownerToken, String fingerprint, Duration lease) {
      if (interruptDuringClaim) {
        Thread.currentThread().interrupt();
      }
      if (claimThenFail && Thread.currentThread().isInterrupted()) {
        inner.claim(key, ownerToken, fingerprint, lease);
      }
      failIfInterrupted();
      return inner.claim(key, ownerToken, fingerprint, lease);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, byte[] outcome, Duration ttl) {
      failIfInterrupted();
      return inner.complete(key, ownerToken, outcome, ttl);
    }

    @Override
    public boolean release(RecordKey key, String ownerToken) {
      failIfInterrupted();
      return inner.release(key, ownerToken);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Duration lease) {
      failIfInterrupted();
      return inner.renew(key, ownerToken, lease);
    }

    @Override
    public boolean delete(RecordKey key) {
      throw new UnsupportedOperationException("not used by this test");
    }

    @Override
    public Optional<IdempotencyRecord> read(RecordKey key) {
      failIfInterrupted();
      return inner.read(key);
    }

    @Override
    public void awaitChange(RecordKey key, Duration maxWait) throws InterruptedException {
      waiting.countDown();
      inner.awaitChange(key, maxWait);
    }
  }
}
