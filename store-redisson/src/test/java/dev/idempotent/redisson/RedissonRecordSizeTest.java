package dev.idempotent.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.spi.RecordKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;

/**
 * The bytes Redis spends on a completed record ({@code MEMORY USAGE}, averaged over many records)
 * stay within 1.3 times those of the minimal record an application could keep: {@code SET <user
 * key> <outcome>}. Records have a long scope (a method signature), 20-character keys and 25-byte
 * outcomes, and owner tokens as the executor makes them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedissonRecordSizeTest {
  private static final int RECORDS = 2_000;
  private static final String SCOPE =
      "com.example.orders.OrderService.submit(com.example.orders.SubmitRequest)";
  private static final String SUM_MEMORY_USAGE =
      """
      local sum = 0
      for _, k in ipairs(KEYS) do
        sum = sum + (redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0') or 0)
      end
      return sum
      """;
  private static RedissonClient client;

  private final String run = UUID.randomUUID().toString().substring(0, 6);

  @BeforeAll
  static void connect() {
    client = RedisTestEnvironment.client(2, 0);
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.shutdown();
    }
  }

  @Test
  void aCompletedRecordTakesAtMostOnePointThreeTimesTheMinimalRecord() {
    measureAndCompare(null);
  }

  @Test
  void
      aFingerprintedRecordTakesAtMostOnePointThreeTimesTheMinimalRecordOfKeyFingerprintAndOutcome() {
    measureAndCompare("Xk3v9QpL2mN8rT5wY7zA1b"); // as long as the executor's payload fingerprints
  }

  private void measureAndCompare(String fingerprint) {
    RedissonIdempotencyStore store = RedissonIdempotencyStore.builder(client).build();
    String ownerPrefix = Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ":";
    List<String> minimalNames = new ArrayList<>();
    List<String> newNames = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      String userKey = String.format("o-%s-%011d", run, i + (fingerprint == null ? 0 : RECORDS));
      byte[] outcome = outcome(i);
      String owner = ownerPrefix + Long.toString(i + 1, 36);
      byte[] minimalValue =
          fingerprint == null
              ? outcome
              : concat(fingerprint.getBytes(StandardCharsets.UTF_8), outcome);
      client.getBucket(userKey, ByteArrayCodec.INSTANCE).set(minimalValue);
      minimalNames.add(userKey);

      RecordKey key = RecordKey.of(SCOPE, userKey);
      store.claim(key, owner, fingerprint, Duration.ofMinutes(1));
      assertThat(store.complete(key, owner, outcome, Duration.ofHours(1))).isTrue();
      newNames.add(store.names().recordName(key));
    }
    try {
      assertThat(userKeyLength(minimalNames)).isEqualTo(20);
      double minimal = averageMemoryUsage(minimalNames);
      double compact = averageMemoryUsage(newNames);
      System.out.printf(
          "record size (MEMORY USAGE, %s fingerprint): minimal %.1f B, store %.1f B (%.2fx)%n",
          fingerprint == null ? "no" : "with", minimal, compact, compact / minimal);
      assertThat(compact)
          .as("bytes per completed record against %.1f of the minimal record", minimal)
          .isLessThanOrEqualTo(1.3 * minimal);
    } finally {
      deleteAll(minimalNames);
      deleteAll(newNames);
    }
  }

  private static int userKeyLength(List<String> names) {
    return names.get(0).length();
  }

  /** 25 bytes, as an encoded small return value; differing per record so that nothing is shared. */
  private static byte[] outcome(int i) {
    byte[] b = String.format("{\"id\":%09d,\"ok\":true}  ", i).getBytes(StandardCharsets.US_ASCII);
    return Arrays.copyOf(b, 25);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static double averageMemoryUsage(List<String> names) {
    RScript script = client.getScript(StringCodec.INSTANCE);
    long sum = 0;
    for (int from = 0; from < names.size(); from += 500) {
      List<Object> chunk = new ArrayList<>(names.subList(from, Math.min(names.size(), from + 500)));
      Long part =
          script.eval(RScript.Mode.READ_ONLY, SUM_MEMORY_USAGE, RScript.ReturnType.LONG, chunk);
      sum += part;
    }
    return (double) sum / names.size();
  }

  private static void deleteAll(List<String> names) {
    for (int from = 0; from < names.size(); from += 500) {
      client
          .getKeys()
          .delete(names.subList(from, Math.min(names.size(), from + 500)).toArray(String[]::new));
    }
  }
}
