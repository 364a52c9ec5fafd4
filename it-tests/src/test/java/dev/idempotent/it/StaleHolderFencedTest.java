package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A holder paused past its 1 s lease (its renewals never reach the store) loses the key to a new
 * caller, which runs and completes it. When the stale holder wakes up and finishes, the store
 * refuses its completion: the listener gets FENCED, the caller still gets its own result, and the
 * new holder's record (owner, outcome) is untouched, so every later repeat replays the new holder's
 * result. The stale holder's side effect itself did happen (the ledger holds two executions): a
 * holder stalled past its lease is at-least-once for its side effect, never for the recorded
 * outcome.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StaleHolderFencedTest {

  @AfterEach
  void resetGlobal() {
    Idempotency.reset();
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aStaleHolderCannotOverwriteTheNewHoldersRecord(Backend backend) throws Exception {
    BackendSpec spec = new BackendSpec(backend.spec());
    Backend.prepare(spec);
    String runId = UUID.randomUUID().toString();
    String key = "stale";
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch wakeUp = new CountDownLatch(1);
    try (IdempotencyStore store =
            new RenewalDroppingStore(
                spec.openStore("idem-it-stale", Duration.ofSeconds(3), false));
        Ledger ledger = spec.openLedger("idem-it-stale")) {
      CallObserver observer = new CallObserver();
      Idempotency.install(
          IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
      LedgerService service = new LedgerService(ledger, "in-test");
      service.checkpoint(
          (stage, k) -> {
            if (stage == LedgerService.Stage.BEFORE_SIDE_EFFECT
                && Thread.currentThread().getName().equals("stale-holder")) {
              inside.countDown();
              try {
                wakeUp.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
      try {
        AtomicReference<CallOutcome> staleOutcome = new AtomicReference<>();
        Thread holder =
            new Thread(
                () ->
                    staleOutcome.set(
                        observer.observe(key, () -> service.applyWithOneSecondLease(runId, key))),
                "stale-holder");
        holder.start();
        assertThat(inside.await(20, TimeUnit.SECONDS)).as("the holder entered the method").isTrue();

        CallOutcome taker = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int rejected = 0;
        while (System.nanoTime() - deadline < 0) {
          taker = observer.observe(key, () -> service.applyWithOneSecondLease(runId, key));
          if (taker.kind() != CallOutcome.Kind.IN_PROGRESS) {
            break;
          }
          rejected++;
          Thread.sleep(25);
        }
        assertThat(rejected).as("rejections while the stale holder's lease lasted").isPositive();
        assertThat(taker.kind())
            .as("the new holder's call, after the lease ended")
            .isEqualTo(CallOutcome.Kind.EXECUTED);
        assertThat(taker.detail()).isEqualTo("recorded");

        RecordKey recordKey =
            RecordKey.of("it.ledger.lease1s", runId + ":" + key).fittedTo(store.maxKeyLength());
        IdempotencyRecord before = store.read(recordKey).orElseThrow();
        long fencedBefore = observer.fencedEvents();

        wakeUp.countDown();
        holder.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(holder.isAlive()).as("stale holder still running").isFalse();
        CallOutcome stale = staleOutcome.get();
        assertThat(stale.kind())
            .as("the stale holder's caller still gets its own result")
            .isEqualTo(CallOutcome.Kind.EXECUTED);
        assertThat(stale.detail()).as("the stale holder's completion").isEqualTo("fenced");
        assertThat(observer.fencedEvents()).as("FENCED events").isGreaterThan(fencedBefore);

        IdempotencyRecord after = store.read(recordKey).orElseThrow();
        assertThat(after.isCompleted()).isTrue();
        assertThat(after.ownerToken()).as("owner of the record").isEqualTo(before.ownerToken());
        assertThat(after.outcome()).as("outcome bytes of the record").isEqualTo(before.outcome());

        CallOutcome repeat =
            observer.observe(key, () -> service.applyWithOneSecondLease(runId, key));
        assertThat(repeat.kind()).isEqualTo(CallOutcome.Kind.REPLAYED);
        assertThat(repeat.digest())
            .as("a repeat replays the new holder's result")
            .isEqualTo(taker.digest())
            .isNotEqualTo(stale.digest());
        assertThat(ledger.counts(runId, List.of(key)).get(key))
            .as("executions in the ledger")
            .isEqualTo(2L);
        System.out.printf(
            "[it-tests] %s stale holder fenced: its completion refused, record untouched, repeats "
                + "replay the new holder's result%n",
            backend);
      } finally {
        wakeUp.countDown();
        ledger.clear(runId, List.of(key));
      }
    }
  }
}
