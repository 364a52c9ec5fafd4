package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A rolling deploy's first start on a database without the idempotency tables: three worker JVMs
 * ({@link FirstStartWorker}) build their JDBC store with {@code createTable(true)} on one fresh
 * table at the same moment and then serve calls of the same keys. Every worker must come up and no
 * call may fail: exactly one execution per key, every other call a replay or a rejection. The
 * tables are dropped afterwards.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class FirstStartAcrossProcessesTest {
  static final int WORKERS = 3;
  static final int THREADS = 8;
  static final int KEYS = 100;
  static final int SUBMISSIONS_PER_KEY = 6;

  @ParameterizedTest
  @EnumSource(
      value = Backend.class,
      names = {"POSTGRES", "MARIADB"})
  void threeJvmsStartingTogetherOnAFreshTableAllServeEveryCall(Backend backend) throws Exception {
    BackendSpec spec = new BackendSpec(backend.spec());
    try (Ledger setup = spec.openLedger("idem-it-setup")) {
      ((JdbcLedger) setup).createTable();
    }
    String table = "idem_it_first_" + UUID.randomUUID().toString().substring(0, 8);
    String runId = UUID.randomUUID().toString();
    Path dir = Path.of("target", "it-runs", "first-start-" + backend + "-" + runId);
    Files.createDirectories(dir);
    List<String> keys = new ArrayList<>();
    List<String> submissions = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      keys.add("k" + k);
      for (int s = 0; s < SUBMISSIONS_PER_KEY; s++) {
        submissions.add("k" + k);
      }
    }
    long seed = System.nanoTime();
    Collections.shuffle(submissions, new Random(seed));

    List<WorkerProcess> workers = new ArrayList<>();
    dropTables(spec, table);
    try (Ledger ledger = spec.openLedger("idem-it-check")) {
      try {
        for (int w = 0; w < WORKERS; w++) {
          Path input = dir.resolve("w" + w + ".keys");
          List<String> mine = new ArrayList<>();
          for (int i = w; i < submissions.size(); i += WORKERS) {
            mine.add(submissions.get(i));
          }
          Files.write(input, mine);
          workers.add(
              WorkerProcess.start(
                  dir,
                  "w" + w,
                  FirstStartWorker.class,
                  "store=" + spec.spec(),
                  "ledger=" + spec.spec(),
                  "run=" + runId,
                  "records=" + table,
                  "threads=" + THREADS,
                  "submissions=" + input,
                  "results=" + dir.resolve("w" + w + ".out")));
        }
        for (WorkerProcess w : workers) {
          w.awaitLine("READY", 60);
        }
        long at = System.currentTimeMillis() + 500; // every worker builds its store at that moment
        for (WorkerProcess w : workers) {
          w.send("GO " + at);
        }
        for (WorkerProcess w : workers) {
          w.awaitLine("DONE", 300);
          assertThat(w.awaitExit(60)).as("exit status of %s", w.name()).isZero();
        }
        List<CallOutcome> outcomes = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
          Files.readAllLines(dir.resolve("w" + w + ".out"))
              .forEach(l -> outcomes.add(CallOutcome.parse(l)));
        }
        assertThat(outcomes)
            .as("one result per submission (shuffle seed %d)", seed)
            .hasSize(submissions.size());
        Map<String, Long> counts = ledger.counts(runId, keys);
        ExactlyOnceCheck.Summary summary =
            ExactlyOnceCheck.verify(
                backend + " first start x" + WORKERS + " JVMs",
                keys,
                outcomes,
                counts,
                true,
                false);
        assertThat(summary.executions()).isEqualTo(KEYS);
        assertThat(summary.storeErrors()).as("failed calls").isZero();
      } finally {
        for (WorkerProcess w : workers) {
          w.close();
        }
        try {
          ledger.clear(runId, keys);
        } finally {
          dropTables(spec, table);
        }
      }
    }
  }

  private static void dropTables(BackendSpec spec, String table) throws Exception {
    try (Connection c = DriverManager.getConnection(spec.spec());
        Statement st = c.createStatement()) {
      for (String t : List.of(table, table + "_scope", table + "_meta")) {
        st.execute("DROP TABLE IF EXISTS " + t);
      }
    }
  }
}
