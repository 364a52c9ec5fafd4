package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyPolicy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The zero-code Redis store when Redis does not answer at start-up: a server socket that never
 * accepts stands in for a hung server, so each connection attempt waits for {@code
 * idempotent.redisson.timeout}.
 */
class RedissonUnreachableAtStartTest {
  private static final String[] SETTINGS = {
    "idempotent.store",
    "idempotent.redisson.address",
    "idempotent.redisson.timeout",
    "idempotent.on-store-failure"
  };

  @AfterEach
  void clear() {
    Idempotency.reset();
    for (String s : SETTINGS) {
      System.clearProperty(s);
    }
  }

  private record Outcome(String thrown, long millis) {}

  @Test
  void sixConcurrentFirstCallersEachFailAsAStoreFailureWithinAboutTwiceOneAttempt()
      throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      System.setProperty("idempotent.store", "redisson");
      System.setProperty(
          "idempotent.redisson.address", "redis://127.0.0.1:" + silent.getLocalPort());
      System.setProperty("idempotent.redisson.timeout", "1s");
      IdempotencyPolicy policy = IdempotencyPolicy.builder("redisson.unreachable").build();
      ExecutorService pool = Executors.newFixedThreadPool(6);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Outcome>> calls = new ArrayList<>();
      try {
        for (int i = 0; i < 6; i++) {
          calls.add(
              pool.submit(
                  () -> {
                    go.await();
                    long start = System.nanoTime();
                    String thrown;
                    try {
                      Idempotency.global().execute(policy, "k", () -> "ran");
                      thrown = "nothing";
                    } catch (Exception e) {
                      thrown = e.getClass().getSimpleName() + ": " + e.getMessage();
                    }
                    return new Outcome(thrown, (System.nanoTime() - start) / 1_000_000);
                  }));
        }
        go.countDown();
        List<Outcome> outcomes = new ArrayList<>();
        for (Future<Outcome> call : calls) {
          outcomes.add(call.get(60, TimeUnit.SECONDS));
        }
        long fastest = outcomes.stream().mapToLong(Outcome::millis).min().orElseThrow();
        for (Outcome o : outcomes) {
          assertThat(o.thrown()).startsWith("IdempotencyStoreException").contains("Redis");
          assertThat(o.millis())
              .as("all six share one attempt: %s", outcomes)
              .isLessThan(fastest + 2_000);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void failOpenRunsTheMethodWhileRedisDoesNotAnswer() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      System.setProperty("idempotent.store", "redisson");
      System.setProperty(
          "idempotent.redisson.address", "redis://127.0.0.1:" + silent.getLocalPort());
      System.setProperty("idempotent.redisson.timeout", "1s");
      System.setProperty("idempotent.on-store-failure", "fail-open");
      IdempotencyPolicy policy = IdempotencyPolicy.builder("redisson.unreachable.open").build();
      assertThat(Idempotency.global().execute(policy, "k", () -> "ran unprotected"))
          .isEqualTo("ran unprotected");
    }
  }
}
