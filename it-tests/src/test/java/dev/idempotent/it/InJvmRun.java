package dev.idempotent.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Callers in the test's own JVM working through shuffled submissions while a test injects a fault.
 * A submission that got a store error or an in-progress rejection is tried again later (25 ms
 * pause), until it gets a result or the run's deadline passes; every attempt's outcome is kept for
 * {@link ExactlyOnceCheck}.
 */
final class InJvmRun {
  final List<String> keys = new ArrayList<>();
  final ConcurrentLinkedQueue<CallOutcome> outcomes = new ConcurrentLinkedQueue<>();
  final AtomicInteger settled = new AtomicInteger();
  final int submissions;
  private final ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
  private final List<Thread> threads = new ArrayList<>();

  InJvmRun(int keyCount, int perKey) {
    List<String> all = new ArrayList<>();
    for (int k = 0; k < keyCount; k++) {
      keys.add("k" + k);
      for (int s = 0; s < perKey; s++) {
        all.add("k" + k);
      }
    }
    Collections.shuffle(all, new Random());
    queue.addAll(all);
    submissions = all.size();
  }

  /**
   * Starts {@code threadCount} callers of {@code service.applyWithOneSecondLease}, each pausing
   * {@code paceMillis}.
   */
  void start(
      int threadCount,
      CallObserver observer,
      LedgerService service,
      String runId,
      long paceMillis,
      long deadlineSeconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(deadlineSeconds);
    for (int i = 0; i < threadCount; i++) {
      Thread t =
          new Thread(
              () -> {
                while (System.nanoTime() - deadline < 0) {
                  String key = queue.poll();
                  if (key == null) {
                    return;
                  }
                  CallOutcome o =
                      observer.observe(key, () -> service.applyWithOneSecondLease(runId, key));
                  outcomes.add(o);
                  try {
                    if (o.kind() == CallOutcome.Kind.STORE_ERROR
                        || o.kind() == CallOutcome.Kind.IN_PROGRESS) {
                      queue.add(key);
                      Thread.sleep(25);
                    } else {
                      settled.incrementAndGet();
                      Thread.sleep(paceMillis);
                    }
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "caller-" + i);
      t.start();
      threads.add(t);
    }
  }

  /** Waits until {@code fraction} of the submissions got a result (bounded by {@code seconds}). */
  void awaitProgress(double fraction, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (settled.get() < submissions * fraction && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
  }

  /** Waits for every caller; true when all submissions got a result. */
  boolean finish(long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    for (Thread t : threads) {
      t.interrupt();
    }
    return settled.get() == submissions;
  }

  List<CallOutcome> storeErrors() {
    return outcomes.stream().filter(o -> o.kind() == CallOutcome.Kind.STORE_ERROR).toList();
  }
}
