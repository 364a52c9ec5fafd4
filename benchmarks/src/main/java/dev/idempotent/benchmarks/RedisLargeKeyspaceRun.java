package dev.idempotent.benchmarks;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.redisson.internal.RecordFormat;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.spi.RecordKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Fresh-key throughput of the Redis store on an empty database and with many completed records in
 * it: measures claim-and-complete of new keys for a while, loads {@code keys} completed records in
 * the store's format (pipelined {@code SET name value PX ttl}, the exact names and values the store
 * writes: a method signature as scope, 20-character keys, 25-byte outcomes), measures again, and
 * reports the ratio and the memory per loaded record ({@code used_memory} growth divided by the
 * records).
 *
 * <p>Run it against an empty database of a Redis server of your own, started for the run without
 * persistence:
 *
 * <pre>
 * redis-server --port 6390 --save "" --appendonly no --daemonize yes
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.RedisLargeKeyspaceRun \
 *     redis://127.0.0.1:6390 10000000 20 16
 * redis-cli -p 6390 shutdown nosave
 * </pre>
 *
 * Arguments: the server, the records to load (default 10,000,000), seconds per measurement after 5
 * s of warm-up (default 20) and calling threads (default 16).
 */
public final class RedisLargeKeyspaceRun {
  private static final Duration LOADED_TTL = Duration.ofHours(6);
  private static final Duration FRESH_TTL = Duration.ofHours(1);

  private RedisLargeKeyspaceRun() {}

  public static void main(String[] args) throws Exception {
    String url = args.length > 0 ? args[0] : "redis://127.0.0.1:6390";
    long keys = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    RedissonClient redisson = Redisson.create(RespPipe.redissonConfig(url, threads));
    try (RespPipe pipe = new RespPipe(url)) {
      RecordSizeReport.requireEmpty(pipe, url);
      RedissonIdempotencyStore store = RedissonIdempotencyStore.builder(redisson).build();
      RecordNames names = new RecordNames(RedissonIdempotencyStore.DEFAULT_KEY_PREFIX);

      String run = Long.toString(System.nanoTime(), 36);
      double empty = freshKeysPerSecond(store, run + "a", seconds, threads);
      long dbBefore = Long.parseLong(pipe.command("DBSIZE"));
      long memBefore = pipe.info("memory", "used_memory");
      long loadStart = System.nanoTime();
      load(pipe, names, keys);
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
      long dbAfter = Long.parseLong(pipe.command("DBSIZE"));
      long memAfter = pipe.info("memory", "used_memory");
      String sample =
          names.recordName(
              RecordKey.of(RecordSizeReport.SCOPE, RecordSizeReport.userKey(keys / 2)));
      String usage = pipe.command("MEMORY", "USAGE", sample, "SAMPLES", "0");
      long sampleUsage = usage == null ? 0 : Long.parseLong(usage);
      double full = freshKeysPerSecond(store, run + "b", seconds, threads);

      System.out.printf(
          "%nRedis store, fresh keys (claim + complete), %d threads, %d s per measurement%n%n",
          threads, seconds);
      System.out.println("| records in the database | fresh keys/s | against empty |");
      System.out.println("|--:|--:|--:|");
      System.out.printf("| %,d | %,.0f | 1.00x |%n", dbBefore, empty);
      System.out.printf("| %,d | %,.0f | %.2fx |%n", dbAfter, full, full / empty);
      System.out.printf(
          "%nloaded %,d records in %.1f s (%,.0f/s); used_memory grew by %,d bytes: %.1f B per"
              + " record (MEMORY USAGE of one: %d B); used_memory now %,d bytes%n",
          dbAfter - dbBefore,
          loadSeconds,
          (dbAfter - dbBefore) / loadSeconds,
          memAfter - memBefore,
          (double) (memAfter - memBefore) / Math.max(1, dbAfter - dbBefore),
          sampleUsage,
          memAfter);
    } finally {
      redisson.shutdown();
    }
  }

  /**
   * Writes {@code keys} completed records as the store writes them (format byte 0x12, owner digest,
   * outcome), pipelined.
   */
  private static void load(RespPipe pipe, RecordNames names, long keys) throws Exception {
    byte[] owner = RecordFormat.ownerDigestBytes("loaded-owner");
    String ttl = Long.toString(LOADED_TTL.toMillis());
    pipe.stream(
        keys,
        i -> {
          String name =
              names.recordName(RecordKey.of(RecordSizeReport.SCOPE, RecordSizeReport.userKey(i)));
          byte[] outcome = RecordSizeReport.outcome(i);
          byte[] value = new byte[3 + outcome.length];
          value[0] = 0x12;
          value[1] = owner[0];
          value[2] = owner[1];
          System.arraycopy(outcome, 0, value, 3, outcome.length);
          if (i % 1_000_000 == 999_999) {
            System.out.printf("loading: %,d sent%n", i + 1);
          }
          return new Object[] {"SET", name, value, "PX", ttl};
        });
  }

  /**
   * Claims and completes new keys from {@code threads} threads; calls per second over {@code
   * seconds}.
   */
  private static double freshKeysPerSecond(
      RedissonIdempotencyStore store, String run, int seconds, int threads)
      throws InterruptedException {
    AtomicBoolean counting = new AtomicBoolean();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong calls = new AtomicLong();
    CountDownLatch done = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    byte[] outcome = RecordSizeReport.outcome(7);
    for (int t = 0; t < threads; t++) {
      String keyPrefix = "fresh-" + run + t + "-";
      Thread worker =
          new Thread(
              () -> {
                try {
                  long n = 0;
                  while (running.get()) {
                    RecordKey key = RecordKey.of(RecordSizeReport.SCOPE, keyPrefix + n);
                    String owner = "owner-" + keyPrefix + n++;
                    if (!store.claim(key, owner, null, BenchmarkSettings.LEASE).isAcquired()
                        || !store.complete(key, owner, outcome, FRESH_TTL)) {
                      throw new IllegalStateException(
                          "a fresh key was not claimed and completed: " + key);
                    }
                    if (counting.get()) {
                      calls.incrementAndGet();
                    }
                  }
                } finally {
                  done.countDown();
                }
              },
              "fresh-keys-" + t);
      worker.start();
      workers.add(worker);
    }
    Thread.sleep(5_000);
    counting.set(true);
    long start = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    counting.set(false);
    double elapsed = (System.nanoTime() - start) / 1e9;
    running.set(false);
    done.await();
    return calls.get() / elapsed;
  }
}
