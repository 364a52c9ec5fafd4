package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 64 threads released at once on one key, through the woven service, on every backend. With the
 * default policy exactly one call runs and the others get its result or an in-progress rejection;
 * with WAIT every caller gets the first result. The ledger (outside the JVM) counts exactly one
 * side effect either way.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SameKeyStormTest {
  private static final int THREADS = 64;

  @AfterEach
  void resetGlobal() {
    Idempotency.reset();
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void sixtyFourThreadsOnOneKeyRunItOnce(Backend backend) throws Exception {
    List<CallOutcome> outcomes = storm(backend, "reject", LedgerService::apply);
    long executed = outcomes.stream().filter(o -> o.kind() == CallOutcome.Kind.EXECUTED).count();
    assertThat(executed).as("executions").isEqualTo(1);
    String first =
        outcomes.stream()
            .filter(o -> o.kind() == CallOutcome.Kind.EXECUTED)
            .findFirst()
            .orElseThrow()
            .digest();
    for (CallOutcome o : outcomes) {
      assertThat(o.kind())
          .as("outcome %s", o.toLine())
          .isIn(CallOutcome.Kind.EXECUTED, CallOutcome.Kind.REPLAYED, CallOutcome.Kind.IN_PROGRESS);
      if (o.kind() == CallOutcome.Kind.REPLAYED) {
        assertThat(o.digest()).as("a replay is the executed result").isEqualTo(first);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aWaitStormGivesEveryCallerTheFirstResult(Backend backend) throws Exception {
    List<CallOutcome> outcomes = storm(backend, "wait", LedgerService::applyWaiting);
    assertThat(outcomes)
        .extracting(CallOutcome::kind)
        .containsOnly(CallOutcome.Kind.EXECUTED, CallOutcome.Kind.REPLAYED);
    assertThat(outcomes.stream().filter(o -> o.kind() == CallOutcome.Kind.EXECUTED).count())
        .isEqualTo(1);
    assertThat(outcomes.stream().map(CallOutcome::digest).distinct().count())
        .as("distinct results seen by the 64 callers")
        .isEqualTo(1);
  }

  private interface Call {
    LedgerReceipt apply(LedgerService service, String runId, String key);
  }

  private List<CallOutcome> storm(Backend backend, String name, Call call) throws Exception {
    BackendSpec spec = new BackendSpec(backend.spec());
    Backend.prepare(spec);
    String runId = UUID.randomUUID().toString();
    String key = "storm-" + name;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (IdempotencyStore store = spec.openStore("idem-it-storm", Duration.ofSeconds(5), false);
        Ledger ledger = spec.openLedger("idem-it-storm")) {
      CallObserver observer = new CallObserver();
      Idempotency.install(
          IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
      LedgerService service = new LedgerService(ledger, "storm");
      service.checkpoint(
          (stage, k) -> {
            if (stage == LedgerService.Stage.AFTER_SIDE_EFFECT) {
              try {
                Thread.sleep(200); // keep the key in progress while the other callers arrive
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
      CountDownLatch go = new CountDownLatch(1);
      List<Future<CallOutcome>> futures = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  return observer.observe(key, () -> call.apply(service, runId, key));
                }));
      }
      go.countDown();
      List<CallOutcome> outcomes = new ArrayList<>();
      for (Future<CallOutcome> f : futures) {
        outcomes.add(f.get(90, TimeUnit.SECONDS));
      }
      try {
        assertThat(ledger.counts(runId, List.of(key)).get(key))
            .as("side effects in the ledger")
            .isEqualTo(1L);
      } finally {
        ledger.clear(runId, List.of(key));
      }
      System.out.printf(
          "[it-tests] %s %d threads on one key (%s): %s%n",
          backend,
          THREADS,
          name,
          outcomes.stream()
              .collect(
                  java.util.stream.Collectors.groupingBy(
                      CallOutcome::kind,
                      java.util.TreeMap::new,
                      java.util.stream.Collectors.counting())));
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }
}
