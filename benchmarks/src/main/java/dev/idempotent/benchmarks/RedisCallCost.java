package dev.idempotent.benchmarks;

import static dev.idempotent.benchmarks.BenchmarkSettings.AMOUNT;
import static dev.idempotent.benchmarks.BenchmarkSettings.LEASE;

import dev.idempotent.redisson.internal.RecordFormat;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.redisson.internal.RecordScript;
import dev.idempotent.spi.IdempotencyStore;
import dev.idempotent.spi.RecordKey;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import org.redisson.api.RScript;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * Where the CPU of a Redis call goes, on both sides of the connection: each variant runs on {@code
 * threads} threads for {@code seconds}, and the report gives its calls per second and the CPU time
 * per call of this JVM (all its threads, Redisson's included) and of the Redis server (from {@code
 * /proc/<pid>/stat} of the {@code process_id} that {@code INFO server} names, so only for a server
 * on this machine). The variants alternate, {@code rounds} times, the first round a warm-up that is
 * not reported; the report gives every round.
 *
 * <p>Beside the woven call (payload checked) and the floors of the JMH rows (target 4: the lean
 * floor, and the floor with the woven call's client work), it runs the store's SPI calls alone
 * (claim, and completion of a fresh key; claim and decoding of a completed one) and the store's
 * claim script sent by hand with precomputed names, so that the executor, the store's client side
 * and the server's scripts can be told apart. The store variants encode and decode outcomes as the
 * woven call does ({@link BaselineOutcomes}), without a fingerprint.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.RedisCallCost 16 5 4
 * </pre>
 *
 * Redis is found through {@code IDEMPOTENT_REDIS_URL} (default {@code redis://127.0.0.1:6379}); the
 * keys it writes expire after 30 s (fresh) and an hour (the replayed ones).
 */
public final class RedisCallCost {
  private static final String SCOPE =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)";
  private static final Duration FRESH_TTL = Duration.ofSeconds(30);

  /** Clock ticks per second of the times in {@code /proc} ({@code USER_HZ}, 100 on Linux). */
  private static final double TICKS_PER_SECOND = 100;

  private RedisCallCost() {}

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    try (RedisBenchFixture fx = new RedisBenchFixture(0)) {
      String[] replayKeys = fx.replayKeys;
      RecordKey[] recorded = new RecordKey[replayKeys.length];
      for (int i = 0; i < replayKeys.length; i++) {
        recorded[i] = RecordKey.of(SCOPE, replayKeys[i]);
        String owner = "cost-setup-" + i;
        fx.store.claim(recorded[i], owner, null, LEASE);
        fx.store.complete(
            recorded[i],
            owner,
            BaselineOutcomes.encode(Receipt.issue(replayKeys[i], AMOUNT)),
            Duration.ofHours(1));
      }
      RScript script = fx.redisson.getScript(ByteArrayCodec.INSTANCE);
      String run = Long.toString(System.nanoTime(), 36) + "-";
      AtomicLong next = new AtomicLong();

      Map<String, IntConsumer> variants = new LinkedHashMap<>();
      variants.put("replay, floor", i -> fx.retainedFloor.replay(replayKeys[i], AMOUNT));
      variants.put(
          "replay, floor with client work",
          i -> fx.retainedFloorWithClientWork.replay(replayKeys[i], AMOUNT));
      RecordNames recordNames = new RecordNames("bench:idem:");
      List<List<Object>> names = new ArrayList<>();
      for (RecordKey key : recorded) {
        names.add(List.of(recordNames.recordName(key)));
      }
      byte[] claim = RecordFormat.claim(RecordFormat.ownerPart("cost-replayer"), null);
      byte[] leaseMs = Long.toString(LEASE.toMillis()).getBytes(StandardCharsets.US_ASCII);
      variants.put(
          "replay, the store's claim script sent by hand",
          i -> {
            List<Object> reply =
                script.evalSha(
                    (String) names.get(i).get(0),
                    RScript.Mode.READ_WRITE,
                    RecordScript.CLAIM.sha(),
                    RScript.ReturnType.LIST,
                    names.get(i),
                    claim,
                    leaseMs);
            byte[] value = (byte[]) reply.get(0);
            BaselineOutcomes.decode(Arrays.copyOfRange(value, 3, value.length));
          });
      variants.put("replay, woven", i -> fx.service.submitRetainedChecked(replayKeys[i], AMOUNT));
      variants.put("replay, store claim alone", i -> replay(fx.store, recorded[i]));
      variants.put(
          "fresh, floor",
          i -> fx.freshFloor.submit(run + "f" + next.incrementAndGet(), "cost-" + i, AMOUNT));
      variants.put(
          "fresh, floor with client work",
          i ->
              fx.freshFloorWithClientWork.submit(
                  run + "c" + next.incrementAndGet(), "cost-" + i, AMOUNT));
      variants.put(
          "fresh, woven",
          i -> fx.service.submitChecked(run + "w" + next.incrementAndGet(), AMOUNT));
      variants.put(
          "fresh, store claim and completion alone",
          i -> fresh(fx.store, RecordKey.of(SCOPE, run + "s" + next.incrementAndGet())));

      Path redisStat = redisStat(fx);
      Map<String, List<String>> report = new LinkedHashMap<>();
      // the replays first: records of the fresh variants expiring meanwhile would charge the server
      // time of their expiry to whatever runs then
      for (String kind : List.of("replay", "fresh")) {
        for (int r = 0; r < rounds; r++) {
          for (Map.Entry<String, IntConsumer> v : variants.entrySet()) {
            if (!v.getKey().startsWith(kind)) {
              continue;
            }
            String line = measure(v.getValue(), threads, seconds, replayKeys.length, redisStat);
            if (r > 0) {
              report.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(line);
            }
          }
        }
      }
      System.out.printf(
          "%n%d threads, %d s a variant; calls/s, then CPU µs per call of this JVM and of"
              + " Redis%s:%n%n",
          threads, seconds, redisStat == null ? " (not on this machine: n/a)" : "");
      System.out.println("| variant | round | calls/s | JVM µs/call | Redis µs/call |");
      System.out.println("|---|--:|--:|--:|--:|");
      for (Map.Entry<String, List<String>> e : report.entrySet()) {
        for (int r = 0; r < e.getValue().size(); r++) {
          System.out.printf("| %s | %d | %s |%n", e.getKey(), r + 1, e.getValue().get(r));
        }
      }
    }
  }

  private static void replay(IdempotencyStore store, RecordKey key) {
    BaselineOutcomes.decode(store.claim(key, "cost-replayer", null, LEASE).existing().outcome());
  }

  private static void fresh(IdempotencyStore store, RecordKey key) {
    String owner = "cost-" + key.key();
    if (!store.claim(key, owner, null, LEASE).isAcquired()) {
      throw new IllegalStateException("fresh key " + key + " was already taken");
    }
    byte[] outcome = BaselineOutcomes.encode(Receipt.issue(key.key(), AMOUNT));
    if (!store.complete(key, owner, outcome, FRESH_TTL)) {
      throw new IllegalStateException("the claim of " + key + " was lost");
    }
  }

  /** One variant's calls/s, JVM µs per call and Redis µs per call, as table cells. */
  private static String measure(
      IntConsumer call, int threads, int seconds, int keyCount, Path redisStat) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    LongAdder calls = new LongAdder();
    List<Throwable> failures = new ArrayList<>();
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int offset = t * (keyCount / threads);
      workers[t] =
          new Thread(
              () -> {
                int i = offset;
                try {
                  while (!stop.get()) {
                    call.accept(i++ % keyCount);
                    calls.increment();
                  }
                } catch (Throwable e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              });
      workers[t].start();
    }
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Thread.sleep(1000);
    long calls0 = calls.sum();
    long jvm0 = os.getProcessCpuTime();
    long redis0 = redisTicks(redisStat);
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long calls1 = calls.sum();
    long jvm1 = os.getProcessCpuTime();
    long redis1 = redisTicks(redisStat);
    long t1 = System.nanoTime();
    stop.set(true);
    for (Thread w : workers) {
      w.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a call failed", failures.get(0));
    }
    double n = calls1 - calls0;
    String redis =
        redisStat == null
            ? "n/a"
            : String.format("%.1f", (redis1 - redis0) * (1e6 / TICKS_PER_SECOND) / n);
    return String.format(
        "%,.0f | %.1f | %s", n / ((t1 - t0) / 1e9), (jvm1 - jvm0) / 1e3 / n, redis);
  }

  /** {@code /proc/<pid>/stat} of the Redis server, or null when it is not on this machine. */
  private static Path redisStat(RedisBenchFixture fx) {
    try {
      Map<String, String> server =
          fx.redisson
              .getRedisNodes(RedisNodes.SINGLE)
              .getInstance()
              .info(RedisNode.InfoSection.SERVER);
      Path stat = Path.of("/proc", server.get("process_id"), "stat");
      return Files.isReadable(stat) && isRedis(stat) ? stat : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static boolean isRedis(Path stat) {
    try {
      return Files.readString(stat, StandardCharsets.US_ASCII).contains("(redis-server)");
    } catch (IOException e) {
      return false;
    }
  }

  /** User and system clock ticks of the process (fields 14 and 15 of {@code stat}). */
  private static long redisTicks(Path stat) throws IOException {
    if (stat == null) {
      return 0;
    }
    String text = Files.readString(stat, StandardCharsets.US_ASCII);
    String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
