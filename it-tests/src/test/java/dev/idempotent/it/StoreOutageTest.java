package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.redisson.RedisServerProcess;
import dev.idempotent.spi.IdempotencyStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store goes away in the middle of a run of 8 callers (fail-closed, the default): a test-owned
 * Redis server is stopped and started again; PostgreSQL connections of the store's pool are
 * terminated again and again. Every call that meets the outage gets {@code
 * IdempotencyStoreException} within the configured timeouts plus slack, nothing hangs, and once the
 * store is back every submission completes with one execution per key; an extra execution is
 * allowed only after an execution whose outcome could not be recorded (its completion failed during
 * the outage), which is the documented at-least-once case.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StoreOutageTest {
  static final Duration SLACK = Duration.ofMillis(1500);

  @AfterEach
  void resetGlobal() {
    Idempotency.reset();
  }

  @Test
  void redisStoppedAndRestartedMidRun() throws Exception {
    Duration timeout = Duration.ofMillis(500);
    // one retry 100 ms after the first attempt (BackendSpec.redisson)
    Duration failsWithin = timeout.multipliedBy(2).plusMillis(100).plus(SLACK);
    String runId = UUID.randomUUID().toString();
    try (RedisServerProcess storeServer =
            RedisServerProcess.launch("--appendonly", "yes", "--appendfsync", "always");
        RedisServerProcess ledgerServer = RedisServerProcess.launch();
        IdempotencyStore store =
            new BackendSpec(storeServer.url()).openStore("idem-it-outage", timeout, false);
        Ledger ledger = new BackendSpec(ledgerServer.url()).openLedger("idem-it-outage")) {
      CallObserver observer = new CallObserver();
      Idempotency.install(
          IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
      InJvmRun run = new InJvmRun(200, 5);
      run.start(8, observer, new LedgerService(ledger, "in-test"), runId, 5, 90);
      run.awaitProgress(0.3, 30);
      int settledAtStop = run.settled.get();
      storeServer.stop();
      Thread.sleep(1500);
      storeServer.start();
      assertThat(run.finish(90)).as("every submission got a result after the restart").isTrue();
      assertThat(settledAtStop).as("the outage began mid-run").isLessThan(run.submissions);
      check("Redis stopped 1.5 s and restarted", run, ledger, runId, failsWithin);
    }
  }

  @Test
  void postgresConnectionsTerminatedMidRun() throws Exception {
    BackendSpec spec = new BackendSpec(TestEnvironment.postgresUrl());
    Backend.prepare(spec);
    Duration timeout = Duration.ofSeconds(1);
    // a terminated connection fails at once; a new one takes at most the pool's connection timeout,
    // a
    // statement at most the query timeout
    Duration failsWithin = timeout.multipliedBy(2).plus(SLACK);
    String runId = UUID.randomUUID().toString();
    String applicationName = "idem-it-" + runId.substring(0, 8);
    try (IdempotencyStore store = spec.openStore(applicationName, timeout, false);
        Ledger ledger = spec.openLedger(applicationName);
        Connection admin = DriverManager.getConnection(spec.spec())) {
      CallObserver observer = new CallObserver();
      Idempotency.install(
          IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
      InJvmRun run = new InJvmRun(200, 5);
      run.start(8, observer, new LedgerService(ledger, "in-test"), runId, 5, 90);
      run.awaitProgress(0.2, 30);
      int terminated = 0;
      for (int round = 0; round < 5; round++) {
        terminated += terminate(admin, applicationName);
        Thread.sleep(300);
      }
      assertThat(terminated).as("store connections terminated").isPositive();
      assertThat(run.finish(90))
          .as("every submission got a result after the terminations")
          .isTrue();
      check(
          "PostgreSQL store connections terminated 5 times (" + terminated + " backends)",
          run,
          ledger,
          runId,
          failsWithin);
    } finally {
      try (Ledger ledger = spec.openLedger("idem-it-cleanup")) {
        ledger.clear(runId, List.of());
      }
    }
  }

  private static int terminate(Connection admin, String applicationName) throws Exception {
    try (PreparedStatement s =
        admin.prepareStatement(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
                + " current_database() AND pid <> pg_backend_pid() AND application_name = ?")) {
      s.setString(1, applicationName);
      int n = 0;
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          n++;
        }
      }
      return n;
    }
  }

  static void check(String label, InJvmRun run, Ledger ledger, String runId, Duration failsWithin) {
    List<CallOutcome> errors = run.storeErrors();
    assertThat(errors).as("%s: calls that met the outage", label).isNotEmpty();
    assertThat(
            errors.stream()
                .filter(o -> o.micros() > failsWithin.toNanos() / 1000)
                .map(CallOutcome::toLine)
                .limit(5))
        .as("%s: store errors slower than %s", label, failsWithin)
        .isEmpty();
    long slowest = errors.stream().mapToLong(CallOutcome::micros).max().orElse(0);
    ExactlyOnceCheck.verify(
        label
            + " (slowest failing call "
            + slowest / 1000
            + " ms, bound "
            + failsWithin.toMillis()
            + " ms)",
        run.keys,
        List.copyOf(run.outcomes),
        ledger.counts(runId, run.keys),
        false,
        true);
    ledger.clear(runId, run.keys);
  }
}
