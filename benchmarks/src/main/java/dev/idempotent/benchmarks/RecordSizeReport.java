package dev.idempotent.benchmarks;

import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.redisson.internal.RecordNames;
import dev.idempotent.spi.RecordKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Bytes per completed record on Redis: {@code MEMORY USAGE} averaged over N records, and the growth
 * of {@code used_memory} divided by N (which also counts the keyspace and expiry dictionaries), for
 * the minimal record an application could keep ({@code SET <user key> <outcome>}) and the record
 * the store writes. Records have a method signature as scope, 20-character keys, 25-byte outcomes
 * and owner tokens as the executor makes them; each is measured without and with a payload
 * fingerprint ({@value dev.idempotent.internal.Fingerprints#LENGTH} characters, as the executor
 * makes them).
 *
 * <p>Point it at a database of a Redis server of your own ({@code used_memory} is server-wide),
 * which must be empty; the records it writes are deleted afterwards.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.idempotent.benchmarks.RecordSizeReport [redis-url] [records]
 * </pre>
 */
public final class RecordSizeReport {
  static final String SCOPE =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)";
  static final String FINGERPRINT = "1Xk3v9QpL2mN8rT5wY7zA1b";
  private static final long TTL_MS = Duration.ofHours(1).toMillis();

  private RecordSizeReport() {}

  public static void main(String[] args) throws Exception {
    String url =
        args.length > 0 ? args[0] : BenchmarkSettings.address(BenchmarkSettings.REDIS_URL_VARIABLE);
    int records = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    RedissonClient redisson = Redisson.create(RespPipe.redissonConfig(url, 1));
    try (RespPipe pipe = new RespPipe(url)) {
      requireEmpty(pipe, url);
      RedissonIdempotencyStore store = RedissonIdempotencyStore.builder(redisson).build();
      RecordNames names = new RecordNames(RedissonIdempotencyStore.DEFAULT_KEY_PREFIX);
      String ownerPrefix = Long.toUnsignedString(new java.util.Random(42).nextLong(), 36) + ":";
      System.out.printf(
          "Redis record size, %,d records, scope of %d characters, 20-character keys, 25-byte "
              + "outcomes%n%n",
          records, SCOPE.length());
      System.out.println(
          "| record | fingerprint | MEMORY USAGE per record | used_memory growth per record | "
              + "against minimal |");
      System.out.println("|---|---|--:|--:|--:|");
      for (String fingerprint : new String[] {null, FINGERPRINT}) {
        String fp = fingerprint == null ? "no" : "yes";
        double[] minimal =
            measure(
                pipe,
                records,
                i -> {
                  String name = userKey(i);
                  byte[] value =
                      fingerprint == null ? outcome(i) : concat(bytes(fingerprint), outcome(i));
                  return new Object[][] {{"SET", name, value}};
                },
                RecordSizeReport::userKey);
        row("minimal `SET <key> <outcome>`", fp, minimal, minimal);
        double[] minimalWithTtl =
            measure(
                pipe,
                records,
                i -> {
                  byte[] value =
                      fingerprint == null ? outcome(i) : concat(bytes(fingerprint), outcome(i));
                  return new Object[][] {{"SET", userKey(i), value, "PX", TTL_MS}};
                },
                RecordSizeReport::userKey);
        row("minimal with a ttl `SET <key> <outcome> PX <ttl>`", fp, minimalWithTtl, minimal);
        double[] current = measureStore(pipe, store, names, records, ownerPrefix, fingerprint);
        row("store", fp, current, minimal);
      }
    } finally {
      redisson.shutdown();
    }
  }

  private static void row(String what, String fp, double[] m, double[] minimal) {
    System.out.printf(
        "| %s | %s | %.1f B | %.1f B | %.2fx |%n", what, fp, m[0], m[1], m[0] / minimal[0]);
  }

  static void requireEmpty(RespPipe pipe, String url) throws IOException {
    long keys = Long.parseLong(pipe.command("DBSIZE"));
    if (keys != 0) {
      throw new IllegalStateException(
          "the database at "
              + url
              + " holds "
              + keys
              + " keys: point the run at an empty database of a Redis server of your own (for"
              + " example redis-server --port 6390 --save \"\" --appendonly no, and"
              + " redis://127.0.0.1:6390)");
    }
  }

  /**
   * {MEMORY USAGE per record, used_memory growth per record} of the records {@code write} makes.
   */
  private static double[] measure(
      RespPipe pipe, int records, IntFunction<Object[][]> write, IntFunction<String> name)
      throws IOException {
    long before = pipe.info("memory", "used_memory");
    for (int i = 0; i < records; i++) {
      for (Object[] command : write.apply(i)) {
        pipe.send(command);
      }
      if (i % 1000 == 999) {
        pipe.sync();
      }
    }
    pipe.sync();
    return summarize(pipe, records, before, name);
  }

  private static double[] measureStore(
      RespPipe pipe,
      RedissonIdempotencyStore store,
      RecordNames names,
      int records,
      String ownerPrefix,
      String fingerprint)
      throws IOException {
    long before = pipe.info("memory", "used_memory");
    for (int i = 0; i < records; i++) {
      RecordKey key = RecordKey.of(SCOPE, userKey(i));
      String owner = ownerPrefix + Long.toString(i + 1, 36);
      store.claim(key, owner, fingerprint, BenchmarkSettings.LEASE);
      if (!store.complete(key, owner, outcome(i), Duration.ofMillis(TTL_MS))) {
        throw new IllegalStateException("the store lost its claim of " + key);
      }
    }
    return summarize(pipe, records, before, i -> names.recordName(RecordKey.of(SCOPE, userKey(i))));
  }

  private static double[] summarize(
      RespPipe pipe, int records, long before, IntFunction<String> name) throws IOException {
    long after = pipe.info("memory", "used_memory");
    long usage = 0;
    List<String> names = new ArrayList<>(records);
    for (int i = 0; i < records; i++) {
      names.add(name.apply(i));
      usage += Long.parseLong(pipe.command("MEMORY", "USAGE", names.get(i), "SAMPLES", "0"));
    }
    for (String n : names) {
      pipe.send("UNLINK", n);
    }
    pipe.sync();
    return new double[] {(double) usage / records, (double) (after - before) / records};
  }

  /** A 20-character user key. */
  static String userKey(long i) {
    String digits = Long.toString(i);
    return "order-" + "00000000000000".substring(digits.length()) + digits;
  }

  /** 25 bytes, as an encoded small return value, different per record. */
  static byte[] outcome(long i) {
    byte[] b =
        ("{\"id\":" + (100_000_000 + i) + ",\"ok\":true}      ")
            .getBytes(StandardCharsets.US_ASCII);
    return Arrays.copyOf(b, 25);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
