package dev.idempotent.it;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A worker process of the cross-process tests. It opens the store and the ledger, prints {@code
 * READY}, waits for {@code GO} on its standard input, does its job and exits. Arguments are {@code
 * name=value}:
 *
 * <ul>
 *   <li>{@code store=}, {@code ledger=}: {@link BackendSpec}s; {@code run=}: the run id; {@code
 *       worker=}: its name
 *   <li>{@code mode=load submissions=FILE results=FILE threads=16}: calls {@link
 *       LedgerService#apply} once per line of the submissions file from {@code threads} threads,
 *       writes one {@link CallOutcome} line per call to the results file, prints {@code DONE
 *       <calls>}; with {@code reactive=true} it calls {@link LedgerService#applyReactive} and
 *       blocks for each {@code Mono}
 *   <li>{@code mode=hold key=K stage=BEFORE_SIDE_EFFECT|AFTER_SIDE_EFFECT}: calls {@link
 *       LedgerService#applyWithTwoSecondLease} and, at that stage, prints {@code INSIDE} and blocks
 *       (for the test to kill it)
 *   <li>{@code mode=takeover key=K}: calls {@link LedgerService#applyWithTwoSecondLease} every 25
 *       ms until it is not rejected as in progress (at most 20 s), prints {@code OUTCOME <line>}
 *       and {@code ATTEMPTS <calls> <in-progress rejections> <ms since GO>}
 * </ul>
 *
 * Logs go to standard error; standard output carries only the lines above.
 */
public final class LedgerWorker {
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(3);

  /**
   * Three workers of 16 threads, the servers and the build share 2 cores: a Redis client may not
   * get a command onto its connection for a few hundred milliseconds. Three more attempts, half a
   * second apart, keep that starvation from counting as a store failure; an outage still fails
   * within two seconds of trying plus the timeout.
   */
  private static final Duration STORE_RETRY_INTERVAL = Duration.ofMillis(500);

  private LedgerWorker() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("argument '" + arg + "': write name=value");
      }
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    String runId = required(a, "run");
    String worker = required(a, "worker");
    String mode = required(a, "mode");
    int status = 0;
    try (IdempotencyStore store =
            new BackendSpec(required(a, "store"))
                .openStore(worker, STORE_TIMEOUT, false, 3, STORE_RETRY_INTERVAL);
        Ledger ledger = new BackendSpec(required(a, "ledger")).openLedger(worker)) {
      CallObserver observer = new CallObserver();
      Idempotency.install(
          IdempotencyConfig.builder().defaultStore(store).listener(observer).build());
      LedgerService service = new LedgerService(ledger, worker);
      warmUp(store, ledger, runId, Integer.parseInt(a.getOrDefault("threads", "16")));
      BufferedReader stdin =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      say("READY");
      String go = stdin.readLine();
      if (!"GO".equals(go)) {
        say("ABORTED");
        System.exit(3);
      }
      switch (mode) {
        case "load" -> load(a, runId, service, observer);
        case "hold" -> hold(a, runId, service);
        case "takeover" -> takeover(a, runId, service, observer);
        default ->
            throw new IllegalArgumentException("mode '" + mode + "': write load, hold or takeover");
      }
    } catch (Throwable t) {
      t.printStackTrace();
      status = 2;
    } finally {
      Idempotency.reset();
    }
    System.out.flush();
    System.exit(status);
  }

  /**
   * Opens the pools' connections and loads the classes before the clock starts: reads only, never
   * writes.
   */
  private static void warmUp(IdempotencyStore store, Ledger ledger, String runId, int threads)
      throws InterruptedException {
    List<Thread> pool = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      RecordKey key = RecordKey.of("it.warm-up", runId + ":" + i);
      Thread t =
          new Thread(
              () -> {
                for (int n = 0; n < 5; n++) {
                  store.read(key);
                  ledger.counts(runId, List.of("warm-up"));
                }
              },
              "warm-up-" + i);
      t.start();
      pool.add(t);
    }
    for (Thread t : pool) {
      t.join(TimeUnit.SECONDS.toMillis(60));
    }
  }

  static void load(
      Map<String, String> a, String runId, LedgerService service, CallObserver observer)
      throws IOException, InterruptedException {
    ConcurrentLinkedQueue<String> queue =
        new ConcurrentLinkedQueue<>(Files.readAllLines(Path.of(required(a, "submissions"))));
    int threads = Integer.parseInt(a.getOrDefault("threads", "16"));
    boolean reactive = Boolean.parseBoolean(a.getOrDefault("reactive", "false"));
    ConcurrentLinkedQueue<CallOutcome> outcomes = new ConcurrentLinkedQueue<>();
    List<Thread> pool = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t =
          new Thread(
              () -> {
                String key;
                while ((key = queue.poll()) != null) {
                  String k = key;
                  outcomes.add(
                      reactive
                          ? observer.observeReactive(k, id -> service.applyReactive(runId, k, id))
                          : observer.observe(k, () -> service.apply(runId, k)));
                }
              },
              "caller-" + i);
      t.start();
      pool.add(t);
    }
    for (Thread t : pool) {
      t.join(TimeUnit.MINUTES.toMillis(10));
    }
    try (BufferedWriter out = Files.newBufferedWriter(Path.of(required(a, "results")))) {
      for (CallOutcome o : outcomes) {
        out.write(o.toLine());
        out.newLine();
      }
    }
    say("DONE " + outcomes.size());
  }

  private static void hold(Map<String, String> a, String runId, LedgerService service) {
    String key = required(a, "key");
    LedgerService.Stage stage = LedgerService.Stage.valueOf(required(a, "stage"));
    service.checkpoint(
        (reached, k) -> {
          if (reached == stage) {
            say("INSIDE " + stage);
            try {
              Thread.sleep(TimeUnit.MINUTES.toMillis(2)); // the test kills this process long before
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the test did not kill this worker within 2 minutes");
          }
        });
    service.applyWithTwoSecondLease(runId, key);
    say("RETURNED");
  }

  private static void takeover(
      Map<String, String> a, String runId, LedgerService service, CallObserver observer)
      throws InterruptedException {
    String key = required(a, "key");
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(20);
    int calls = 0;
    int inProgress = 0;
    CallOutcome outcome;
    while (true) {
      calls++;
      outcome = observer.observe(key, () -> service.applyWithTwoSecondLease(runId, key));
      if (outcome.kind() != CallOutcome.Kind.IN_PROGRESS || System.nanoTime() - deadline > 0) {
        break;
      }
      inProgress++;
      Thread.sleep(25);
    }
    say("OUTCOME " + outcome.toLine());
    say(
        "ATTEMPTS "
            + calls
            + " "
            + inProgress
            + " "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private static String required(Map<String, String> a, String name) {
    String v = a.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("missing argument " + name + "=...");
    }
    return v;
  }
}
