package dev.idempotent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
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
 * Three worker JVMs with 16 threads each hammer the same keys (each key submitted many times,
 * shuffled, split across the workers) through the woven {@link LedgerService}; the backend's ledger
 * must hold exactly one execution per key and every caller must have got that execution's result or
 * a rejection. {@code -Dsoak=true} runs ten times as many keys.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ExactlyOnceAcrossProcessesTest {
  static final int WORKERS = 3;
  static final int THREADS = 16;
  static final int KEYS = Boolean.getBoolean("soak") ? 5_000 : 500;
  static final int SUBMISSIONS_PER_KEY = 20;

  @ParameterizedTest
  @EnumSource(Backend.class)
  void everyKeyRunsExactlyOnceAcrossWorkerProcesses(Backend backend) throws Exception {
    run(backend, KEYS, false);
  }

  /**
   * The same through a woven method returning a {@code Mono} (each subscription one attempt on the
   * non-blocking protocol), on Redis, with a fifth of the keys.
   */
  @org.junit.jupiter.api.Test
  void everyKeyOfAReactiveMethodRunsExactlyOnceAcrossWorkerProcesses() throws Exception {
    run(Backend.REDIS, KEYS / 5, true);
  }

  private void run(Backend backend, int keyCount, boolean reactive) throws Exception {
    BackendSpec spec = new BackendSpec(backend.spec());
    Backend.prepare(spec);
    String runId = UUID.randomUUID().toString();
    Path dir = Path.of("target", "it-runs", "load-" + backend + "-" + runId);
    Files.createDirectories(dir);

    List<String> keys = new ArrayList<>();
    List<String> submissions = new ArrayList<>();
    for (int k = 0; k < keyCount; k++) {
      keys.add("k" + k);
      for (int s = 0; s < SUBMISSIONS_PER_KEY; s++) {
        submissions.add("k" + k);
      }
    }
    long seed = System.nanoTime();
    Collections.shuffle(submissions, new Random(seed));

    List<WorkerProcess> workers = new ArrayList<>();
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
                  "store=" + spec.spec(),
                  "ledger=" + spec.spec(),
                  "run=" + runId,
                  "mode=load",
                  "reactive=" + reactive,
                  "threads=" + THREADS,
                  "submissions=" + input,
                  "results=" + dir.resolve("w" + w + ".out")));
        }
        for (WorkerProcess w : workers) {
          w.awaitLine("READY", 60);
        }
        long start = System.nanoTime();
        for (WorkerProcess w : workers) {
          w.send("GO");
        }
        for (WorkerProcess w : workers) {
          w.awaitLine("DONE", 300);
          assertThat(w.awaitExit(60)).as("exit status of %s", w.name()).isZero();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

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
                backend
                    + (reactive ? " (Mono)" : "")
                    + " x"
                    + WORKERS
                    + " JVMs x"
                    + THREADS
                    + " threads in "
                    + millis
                    + " ms",
                keys,
                outcomes,
                counts,
                true,
                false);
        assertThat(summary.executions()).isEqualTo(keyCount);
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum())
            .as("ledger entries")
            .isEqualTo(keyCount);
      } finally {
        for (WorkerProcess w : workers) {
          w.close();
        }
        try {
          ledger.clear(runId, keys);
        } catch (RuntimeException e) {
          System.out.println("[it-tests] ledger clean-up failed: " + e);
        }
      }
    }
  }
}
