package dev.idempotent.tck;

import static dev.idempotent.tck.ContractFixture.LONG_LEASE;
import static dev.idempotent.tck.ContractFixture.owner;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.ClaimResult;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Claim races: threads racing to claim the same keys see exactly one winner per key, and every
 * loser sees the winner's record.
 */
interface ConcurrencyContract extends ContractGroup {
  @Test
  @DisplayName(
      "16 threads racing to claim 200 keys: exactly one acquires each key, the others see its"
          + " owner")
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  default void concurrentClaimsHaveOneWinnerPerKey() throws Exception {
    IdempotencyStore store = fixture().store();
    int threads = 16;
    int keyCount = 200;
    List<RecordKey> keys = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      keys.add(fixture().newKey());
    }
    Map<RecordKey, ConcurrentLinkedQueue<String>> winners = new ConcurrentHashMap<>();
    Map<RecordKey, ConcurrentLinkedQueue<String>> seen = new ConcurrentHashMap<>();
    for (RecordKey key : keys) {
      winners.put(key, new ConcurrentLinkedQueue<>());
      seen.put(key, new ConcurrentLinkedQueue<>());
    }
    CountDownLatch startGate = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  List<RecordKey> order = new ArrayList<>(keys);
                  Collections.shuffle(order, new Random(thread));
                  startGate.await();
                  for (RecordKey key : order) {
                    String owner = "t" + thread + "-" + UUID.randomUUID();
                    ClaimResult result = store.claim(key, owner, "fp", LONG_LEASE);
                    if (result.isAcquired()) {
                      winners.get(key).add(owner);
                    } else {
                      seen.get(key).add(result.existing().ownerToken());
                    }
                  }
                  return null;
                }));
      }
      startGate.countDown();
      for (Future<?> f : futures) {
        f.get(100, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    for (RecordKey key : keys) {
      List<String> won = new ArrayList<>(winners.get(key));
      assertThat(won).as("owners that acquired %s", key).hasSize(1);
      assertThat(seen.get(key))
          .as("owners the losers of %s saw", key)
          .hasSize(threads - 1)
          .containsOnly(won.get(0));
      assertThat(fixture().readLive(key).ownerToken()).isEqualTo(won.get(0));
    }
  }
}
