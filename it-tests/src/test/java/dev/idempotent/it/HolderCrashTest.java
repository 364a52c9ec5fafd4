package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A worker holding a key (2 s lease, renewed every third of it) is killed with SIGKILL inside the
 * method; another worker process, calling every 25 ms, is rejected while the dead holder's lease
 * lasts and then runs the key itself, within the lease plus slack.
 *
 * <ul>
 *   <li>Killed BEFORE its side effect: exactly one execution in the ledger (exactly-once).
 *   <li>Killed AFTER its side effect, before recording the outcome: two executions in the ledger.
 *       This is the documented limit: a method that crashes after its side effect but before its
 *       outcome is recorded is at-least-once; make such side effects idempotent themselves (or
 *       transactional with the record, see the JDBC store's ConnectionProvider).
 * </ul>
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HolderCrashTest {
  static final long LEASE_MILLIS = 2_000;

  /** Renewal tick, JVM scheduling and the taker's 25 ms polling on a busy two-core machine. */
  static final long SLACK_MILLIS = 1_500;

  static Stream<Arguments> cases() {
    return Stream.of(Backend.values())
        .flatMap(
            b ->
                Stream.of(
                    Arguments.of(b, LedgerService.Stage.BEFORE_SIDE_EFFECT, 1L),
                    Arguments.of(b, LedgerService.Stage.AFTER_SIDE_EFFECT, 2L)));
  }

  @ParameterizedTest(name = "{0}: killed {1} -> {2} execution(s)")
  @MethodSource("cases")
  void anotherWorkerTakesOverTheKeyOfAKilledHolder(
      Backend backend, LedgerService.Stage stage, long expected) throws Exception {
    BackendSpec spec = new BackendSpec(backend.spec());
    Backend.prepare(spec);
    String runId = UUID.randomUUID().toString();
    Path dir = Path.of("target", "it-runs", "crash-" + backend + "-" + runId);
    String key = "crash-" + stage;
    try (Ledger ledger = spec.openLedger("idem-it-check");
        WorkerProcess holder =
            WorkerProcess.start(
                dir,
                "holder",
                "store=" + spec.spec(),
                "ledger=" + spec.spec(),
                "run=" + runId,
                "mode=hold",
                "key=" + key,
                "stage=" + stage);
        WorkerProcess taker =
            WorkerProcess.start(
                dir,
                "taker",
                "store=" + spec.spec(),
                "ledger=" + spec.spec(),
                "run=" + runId,
                "mode=takeover",
                "key=" + key)) {
      try {
        holder.awaitLine("READY", 60);
        taker.awaitLine("READY", 60);
        holder.send("GO");
        holder.awaitLine("INSIDE", 30);
        // stay inside for more than one renewal period, so the kill hits a claim that was being
        // renewed
        Thread.sleep(LEASE_MILLIS / 2);
        holder.kill();
        taker.send("GO");
        CallOutcome outcome =
            CallOutcome.parse(taker.awaitLine("OUTCOME ", 30).substring("OUTCOME ".length()));
        String[] attempts = taker.awaitLine("ATTEMPTS ", 5).split(" ");
        int inProgress = Integer.parseInt(attempts[2]);
        long millis = Long.parseLong(attempts[3]);
        System.out.printf(
            "[it-tests] %s holder killed %s: taker rejected %d times, ran the key after %d ms "
                + "(lease %d ms); ledger %s%n",
            backend, stage, inProgress, millis, LEASE_MILLIS, ledger.counts(runId, List.of(key)));

        assertThat(outcome.kind()).as("the taker's call").isEqualTo(CallOutcome.Kind.EXECUTED);
        assertThat(outcome.detail()).as("the taker's completion").isEqualTo("recorded");
        assertThat(inProgress).as("rejections while the dead holder's lease lasted").isPositive();
        assertThat(millis)
            .as("time from the kill to the takeover")
            .isLessThanOrEqualTo(LEASE_MILLIS + SLACK_MILLIS);
        assertThat(ledger.counts(runId, List.of(key)).get(key))
            .as("executions in the ledger")
            .isEqualTo(expected);
      } finally {
        ledger.clear(runId, List.of(key));
      }
    }
  }
}
