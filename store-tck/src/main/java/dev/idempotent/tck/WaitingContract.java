package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.LONG_TTL;
import static dev.idempotent.tck.ContractFixture.NOTIFIED_MAX_WAIT;
import static dev.idempotent.tck.ContractFixture.NOTIFIED_WITHIN;
import static dev.idempotent.tck.ContractFixture.WAIT_SLACK;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waiting: {@link IdempotencyStore#awaitChange} returns within its {@code maxWait}, and a store
 * that {@link IdempotencyStoreContract#notifiesWaiters notifies waiters} wakes them soon after the
 * holder completes or releases the key, or the key is deleted. A waiter never writes.
 */
interface WaitingContract extends ContractGroup {
  @Test
  @DisplayName("awaitChange returns soon after another thread completes the key")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  default void awaitChangeReturnsAfterComplete() throws Exception {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);
    awaitChangeWhile(
        key, () -> assertThat(store.complete(key, owner, new byte[] {1}, LONG_TTL)).isTrue());
  }

  @Test
  @DisplayName("awaitChange returns soon after another thread releases the key")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  default void awaitChangeReturnsAfterRelease() throws Exception {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    String owner = owner();
    store.claim(key, owner, null, LONG_LEASE);
    awaitChangeWhile(key, () -> assertThat(store.release(key, owner)).isTrue());
  }

  @Test
  @DisplayName("awaitChange returns soon after another thread deletes the key")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  default void awaitChangeReturnsAfterDelete() throws Exception {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    store.claim(key, owner(), null, LONG_LEASE);
    awaitChangeWhile(key, () -> assertThat(store.delete(key)).isTrue());
  }

  @Test
  @DisplayName("awaitChange on a key nobody changes returns within its maxWait")
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  default void awaitChangeIsBounded() throws InterruptedException {
    IdempotencyStore store = fixture().store();
    RecordKey key = fixture().newKey();
    store.claim(key, owner(), null, LONG_LEASE);
    Duration maxWait = Duration.ofMillis(300);

    long start = System.nanoTime();
    store.awaitChange(key, maxWait);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).as("awaitChange(%s) took", maxWait).isLessThan(maxWait.plus(WAIT_SLACK));
    assertThat(fixture().readLive(key).status())
        .as("a waiter never writes")
        .isEqualTo(RecordStatus.IN_PROGRESS);
  }

  private void awaitChangeWhile(RecordKey key, Runnable change) throws Exception {
    IdempotencyStore store = fixture().store();
    Duration maxWait = fixture().notifiesWaiters() ? NOTIFIED_MAX_WAIT : fixture().shortLease();
    AtomicLong tookNanos = new AtomicLong(-1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    Thread waiter =
        new Thread(
            () -> {
              started.countDown();
              long start = System.nanoTime();
              try {
                store.awaitChange(key, maxWait);
                tookNanos.set(System.nanoTime() - start);
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "tck-waiter");
    waiter.setDaemon(true);
    waiter.start();
    assertThat(started.await(5, TimeUnit.SECONDS)).as("waiter thread started").isTrue();
    waitUntilBlocked(waiter);

    change.run();

    waiter.join(maxWait.plus(WAIT_SLACK).toMillis() + 1000);
    assertThat(waiter.isAlive())
        .as("awaitChange still blocked after maxWait %s", maxWait)
        .isFalse();
    assertThat(failure.get()).as("awaitChange threw").isNull();
    Duration took = Duration.ofNanos(tookNanos.get());
    if (fixture().notifiesWaiters()) {
      assertThat(took)
          .as("awaitChange(maxWait %s) of a store that notifies waiters took", maxWait)
          .isLessThan(NOTIFIED_WITHIN);
    } else {
      assertThat(took)
          .as("awaitChange(maxWait %s) took", maxWait)
          .isLessThan(maxWait.plus(WAIT_SLACK));
    }
  }

  /** Gives the waiter a bounded moment to block, so that the change is made while it waits. */
  private static void waitUntilBlocked(Thread waiter) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() - deadline < 0) {
      Thread.State state = waiter.getState();
      if (state == Thread.State.WAITING
          || state == Thread.State.TIMED_WAITING
          || state == Thread.State.TERMINATED) {
        break;
      }
      Thread.sleep(5);
    }
    Thread.sleep(100);
  }
}
